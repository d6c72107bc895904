#if Postgres
    /// The dashboard page's script (`/assets/app.js`): a hash-routed page of four views (overview, jobs, a job, a
    /// job's graph) that polls the JSON API every two seconds. Every value from the database reaches the page as a
    /// text node or an attribute (`textContent`, `setAttribute`), never as markup, so a job's input cannot inject
    /// anything; the Content-Security-Policy allows only this script.
    enum DashboardScript {
        static let source = #"""
            "use strict";
            const csrf = document.querySelector('meta[name="csrf-token"]').content;
            const readOnly = document.querySelector('meta[name="read-only"]').content === "true";
            const main = document.getElementById("main");
            const statusLine = document.getElementById("status");
            const states = ["blocked", "available", "running", "completed", "failed", "cancelled"];
            let timer = null;
            let generation = 0;

            // Builds an element: attributes by name ("class", "data-…", "href"), children as nodes or text.
            function el(tag, attributes, ...children) {
              const node = document.createElement(tag);
              for (const [name, value] of Object.entries(attributes || {})) {
                if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
              }
              for (const child of children.flat()) {
                if (child === null || child === undefined) continue;
                node.append(child instanceof Node ? child : document.createTextNode(String(child)));
              }
              return node;
            }

            function svg(tag, attributes, ...children) {
              const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
              for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
              for (const child of children.flat()) {
                if (child === null || child === undefined) continue;
                node.append(child instanceof Node ? child : document.createTextNode(String(child)));
              }
              return node;
            }

            async function api(path, options) {
              const response = await fetch(path, Object.assign({ credentials: "same-origin", cache: "no-store" }, options));
              const text = await response.text();
              let body = null;
              try { body = text ? JSON.parse(text) : null; } catch (error) { body = { error: text }; }
              if (!response.ok) throw new Error((body && body.error) || response.status + " " + response.statusText);
              return body;
            }

            function post(path) {
              return api(path, { method: "POST", headers: { "X-CSRF-Token": csrf } });
            }

            function say(text, isError) {
              statusLine.textContent = text;
              statusLine.className = isError ? "error" : "";
            }

            function age(seconds) {
              if (seconds === null || seconds === undefined) return "–";
              if (seconds < 60) return Math.round(seconds) + " s";
              if (seconds < 3600) return Math.round(seconds / 60) + " min";
              return (seconds / 3600).toFixed(1) + " h";
            }

            function when(iso) {
              if (!iso) return "–";
              const date = new Date(iso);
              return isNaN(date) ? String(iso) : date.toLocaleString();
            }

            function stateBadge(state) {
              return el("span", { class: "state state-" + state, "data-state": state }, state);
            }

            function jobLink(id) {
              return el("a", { href: "#/job/" + id, "data-job-link": id }, "#" + id);
            }

            function button(label, action, attributes) {
              const node = el("button", Object.assign({ type: "button" }, attributes || {}), label);
              node.addEventListener("click", async () => {
                node.disabled = true;
                try { await action(); } catch (error) { say(error.message, true); }
                node.disabled = false;
              });
              return node;
            }

            function confirmed(question, action) {
              return async () => { if (window.confirm(question)) { await action(); await refresh(); } };
            }

            // MARK: - Routing

            let refresh = async () => {};

            function route() {
              clearTimeout(timer);
              generation += 1;
              const hash = location.hash || "#/";
              const [path, query] = hash.slice(1).split("?");
              const parameters = new URLSearchParams(query || "");
              const parts = path.split("/").filter(Boolean);
              let view;
              if (parts.length === 0) view = overview;
              else if (parts[0] === "jobs") view = () => jobs(parameters);
              else if (parts[0] === "job" && parts[1]) view = () => job(parts[1]);
              else if (parts[0] === "graph" && parts[1]) view = () => graph(parts[1]);
              else view = overview;
              const mine = generation;
              refresh = async () => {
                if (mine !== generation) return;
                try {
                  const node = await view();
                  if (mine !== generation) return;
                  main.replaceChildren(node);
                  say("updated " + new Date().toLocaleTimeString());
                } catch (error) {
                  say(error.message, true);
                }
              };
              // The next poll two seconds after this one ended (a slow database never piles requests up); none
              // while the tab is hidden or while a field of the page is being edited.
              const poll = async () => {
                if (mine !== generation) return;
                const editing = document.activeElement && main.contains(document.activeElement)
                  && ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
                if (!document.hidden && !editing) await refresh();
                if (mine === generation) timer = setTimeout(poll, 2000);
              };
              poll();
            }

            // MARK: - Overview

            async function overview() {
              const data = await api("/api/overview");
              const stats = data.stats;
              const queues = Object.keys(stats.queues).sort();
              const queueRows = queues.map((name) => {
                const counts = stats.queues[name];
                const paused = stats.paused.includes(name);
                const cells = states.map((state) =>
                  el("td", { class: "count", "data-state": state, "data-count": counts[state] || 0 },
                    el("a", { href: "#/jobs?queue=" + encodeURIComponent(name) + "&state=" + state }, counts[state] || 0)));
                const oldest = stats.oldestAvailableSeconds[name];
                const actions = readOnly ? [] : [
                  paused
                    ? button("Resume", confirmed("Resume the queue " + name + "?", () => post("/api/queues/" + encodeURIComponent(name) + "/resume")), { "data-action": "resume" })
                    : button("Pause", confirmed("Pause the queue " + name + "?", () => post("/api/queues/" + encodeURIComponent(name) + "/pause")), { "data-action": "pause" }),
                ];
                return el("tr", { "data-queue": name, "data-paused": paused },
                  el("th", {}, name, paused ? el("span", { class: "paused" }, " paused") : null),
                  cells, el("td", { "data-oldest": oldest === undefined ? "" : oldest }, age(oldest)), el("td", {}, actions));
              });
              const queueTable = el("table", { id: "queues" },
                el("thead", {}, el("tr", {}, el("th", {}, "Queue"), states.map((s) => el("th", {}, s)), el("th", {}, "Oldest due"), el("th", {}, ""))),
                el("tbody", {}, queueRows));

              const workerRows = data.workers.map((worker) => el("tr", { "data-worker": worker.name },
                el("th", {}, worker.name),
                el("td", {}, worker.queues.join(", ")),
                el("td", {}, worker.running.length + " / " + worker.concurrency),
                el("td", {}, worker.running.map((job) => el("span", { class: "held" }, jobLink(job.id), " lease until ", when(job.leaseExpiresAt)))),
                el("td", {}, age(worker.secondsSinceLastSeen) + " ago")));
              const workerTable = el("table", { id: "workers" },
                el("thead", {}, el("tr", {}, ["Worker", "Queues", "Running", "Jobs", "Last heartbeat"].map((h) => el("th", {}, h)))),
                el("tbody", {}, workerRows.length ? workerRows : el("tr", {}, el("td", { colspan: 5 }, "no worker is running"))));

              const periodicRows = data.periodic.map((job) => el("tr", { "data-periodic": job.name },
                el("th", {}, job.name), el("td", {}, job.kind || "–"), el("td", {}, job.schedule || "–"),
                el("td", {}, when(job.lastPeriod)), el("td", {}, when(job.nextPeriod))));
              const periodicTable = el("table", { id: "periodic" },
                el("thead", {}, el("tr", {}, ["Periodic job", "Kind", "Schedule", "Last period", "Next period"].map((h) => el("th", {}, h)))),
                el("tbody", {}, periodicRows.length ? periodicRows : el("tr", {}, el("td", { colspan: 5 }, "none"))));

              return el("div", { class: "overview" },
                el("h2", {}, "Queues"), queueTable,
                el("h2", {}, "Finished per minute"), throughputChart(data.throughput),
                el("h2", {}, "Workers"), workerTable,
                el("h2", {}, "Periodic jobs"), periodicTable);
            }

            function throughputChart(samples) {
              const minutes = [];
              const now = Math.floor(Date.now() / 60000) * 60000;
              for (let i = 14; i >= 0; i--) minutes.push(now - i * 60000);
              const totals = new Map(minutes.map((m) => [m, { completed: 0, failed: 0 }]));
              for (const sample of samples) {
                const minute = new Date(sample.minute).getTime();
                const entry = totals.get(minute);
                if (entry) { entry.completed += sample.completed; entry.failed += sample.failed + sample.cancelled; }
              }
              const most = Math.max(1, ...[...totals.values()].map((t) => t.completed + t.failed));
              const width = 600, height = 120, bar = width / minutes.length;
              const bars = minutes.map((minute, index) => {
                const t = totals.get(minute);
                const done = (t.completed / most) * (height - 20), bad = (t.failed / most) * (height - 20);
                return svg("g", { "data-minute": new Date(minute).toISOString(), "data-completed": t.completed, "data-failed": t.failed },
                  svg("title", {}, new Date(minute).toLocaleTimeString() + ": " + t.completed + " completed, " + t.failed + " failed or cancelled"),
                  svg("rect", { class: "bar-completed", x: index * bar + 2, y: height - done - bad, width: bar - 4, height: done }),
                  svg("rect", { class: "bar-failed", x: index * bar + 2, y: height - bad, width: bar - 4, height: bad }));
              });
              return svg("svg", { id: "throughput", viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img" },
                svg("text", { x: 4, y: 12, class: "axis" }, "max " + most + "/min"), bars);
            }

            // MARK: - Jobs

            // The listing's query: the filter, and the page (`after`, `limit`) unless `withPage` is false (a bulk action
            // covers every page).
            function filterFrom(parameters, withPage = true) {
              const query = new URLSearchParams();
              for (const name of withPage ? ["state", "kind", "queue", "after", "limit"] : ["state", "kind", "queue"]) {
                if (parameters.get(name)) query.set(name, parameters.get(name));
              }
              // "Created within the last N seconds", as the API's createdAfter (seconds since 1970).
              const since = Number(parameters.get("since"));
              if (since > 0) query.set("createdAfter", String(Math.floor(Date.now() / 1000) - since));
              return query;
            }

            const periods = [["", "any time"], ["3600", "the last hour"], ["86400", "the last day"], ["604800", "the last week"]];

            function describe(filter) {
              const parts = [...filter.entries()].map(([name, value]) =>
                name === "createdAfter" ? "created after " + new Date(Number(value) * 1000).toLocaleString() : name + " " + value);
              return parts.length ? " (" + parts.join(", ") + ")" : " (no filter: every job)";
            }

            async function jobs(parameters) {
              const query = filterFrom(parameters);
              if (!query.get("limit")) query.set("limit", "50");
              const list = await api("/api/jobs?" + query.toString());
              const form = el("form", { id: "filters" },
                el("label", {}, "State ", el("select", { name: "state" }, el("option", { value: "" }, "any"),
                  states.map((s) => el("option", { value: s, selected: parameters.get("state") === s ? "selected" : null }, s)))),
                el("label", {}, " Kind ", el("input", { name: "kind", value: parameters.get("kind") || "" })),
                el("label", {}, " Queue ", el("input", { name: "queue", value: parameters.get("queue") || "" })),
                el("label", {}, " Created ", el("select", { name: "since" },
                  periods.map(([value, label]) => el("option", { value: value, selected: (parameters.get("since") || "") === value ? "selected" : null }, label)))),
                el("button", { type: "submit" }, "Filter"));
              form.addEventListener("submit", (event) => {
                event.preventDefault();
                const next = new URLSearchParams();
                for (const [name, value] of new FormData(form)) if (value) next.set(name, value);
                location.hash = "#/jobs?" + next.toString();
              });
              const rows = list.map((job) => el("tr", { "data-job": job.id, "data-state": job.state },
                el("td", {}, jobLink(job.id)), el("td", {}, job.kind), el("td", {}, job.queue), el("td", {}, stateBadge(job.state)),
                el("td", {}, job.attempt + " / " + job.maxAttempts), el("td", {}, when(job.createdAt)),
                el("td", { class: "error-text" }, job.errors.length ? job.errors[job.errors.length - 1].error : "")));
              const bulkFilter = filterFrom(parameters, false);
              const bulk = readOnly ? [] : [
                button("Retry all matching", confirmed("Retry every failed or cancelled job matching" + describe(bulkFilter) + "?", () => post("/api/jobs/retry?" + bulkFilter.toString())), { "data-action": "retry-matching" }),
                button("Cancel all matching", confirmed("Cancel every unfinished job matching" + describe(bulkFilter) + "?", () => post("/api/jobs/cancel?" + bulkFilter.toString())), { "data-action": "cancel-matching" }),
                bulkFilter.get("state") ? button("Delete all matching", confirmed("Delete every job matching" + describe(bulkFilter) + " that is not running?", () => post("/api/jobs/delete?" + bulkFilter.toString())), { "data-action": "delete-matching" }) : null,
              ];
              const next = new URLSearchParams(query);
              if (list.length) next.set("after", list[list.length - 1].id);
              return el("div", { class: "jobs" }, el("h2", {}, "Jobs"), form, el("div", { class: "actions" }, bulk),
                el("table", { id: "jobs" },
                  el("thead", {}, el("tr", {}, ["Job", "Kind", "Queue", "State", "Attempt", "Created", "Last error"].map((h) => el("th", {}, h)))),
                  el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: 7 }, "no job matches")))),
                list.length === Number(query.get("limit")) ? el("a", { href: "#/jobs?" + next.toString(), id: "next-page" }, "Next page") : null);
            }

            // MARK: - A job

            function pre(value, id) {
              return el("pre", { id: id }, value === null || value === undefined ? "–" : JSON.stringify(value, null, 2));
            }

            async function job(id) {
              const job = await api("/api/jobs/" + encodeURIComponent(id));
              const label = job.input && typeof job.input === "object" && typeof job.input.label === "string" ? job.input.label : null;
              const facts = el("dl", { class: "facts" },
                el("dt", {}, "State"), el("dd", { id: "job-state", "data-state": job.state }, stateBadge(job.state)),
                el("dt", {}, "Kind"), el("dd", {}, job.kind),
                el("dt", {}, "Queue"), el("dd", {}, job.queue),
                el("dt", {}, "Attempt"), el("dd", {}, job.attempt + " of " + job.maxAttempts),
                el("dt", {}, "Created"), el("dd", {}, when(job.createdAt)),
                el("dt", {}, "Runs at"), el("dd", {}, when(job.runAt)),
                el("dt", {}, "Finished"), el("dd", {}, when(job.finishedAt)),
                el("dt", {}, "Worker"), el("dd", {}, job.worker || "–"),
                label === null ? null : [el("dt", {}, "Label"), el("dd", { id: "job-label" }, label)],
                el("dt", {}, "Progress"), el("dd", {},
                  job.progress === null ? "–" : [el("progress", { max: 1, value: job.progress, id: "job-progress" }), " ",
                    Math.round(job.progress * 100) + "%", job.progressMessage ? " " + job.progressMessage : ""]));
              const metadata = Object.keys(job.metadata || {}).sort().map((key) =>
                el("tr", {}, el("th", {}, key), el("td", {}, job.metadata[key])));
              const attempts = (job.attempts || []).map((attempt) => el("tr", { "data-attempt": attempt.attempt },
                el("td", {}, attempt.attempt), el("td", {}, attempt.worker), el("td", {}, when(attempt.startedAt)),
                el("td", {}, when(attempt.finishedAt)), el("td", {}, attempt.outcome || "running"),
                el("td", {}, attempt.seconds === null ? "–" : attempt.seconds.toFixed(3) + " s"),
                el("td", { class: "error-text" }, attempt.error || "")));
              const actions = readOnly ? [] : [
                button("Retry", confirmed("Retry job " + job.id + "?", () => post("/api/jobs/" + job.id + "/retry")), { id: "retry" }),
                button("Cancel", confirmed("Cancel job " + job.id + "?", () => post("/api/jobs/" + job.id + "/cancel")), { id: "cancel" }),
                button("Delete", confirmed("Delete job " + job.id + "?", async () => { await post("/api/jobs/" + job.id + "/delete"); location.hash = "#/jobs"; }), { id: "delete" }),
              ];
              return el("div", { class: "job", "data-job": job.id },
                el("h2", {}, "Job #" + job.id, " ", el("a", { href: "#/graph/" + job.id, id: "graph-link" }, "dependency graph")),
                el("div", { class: "actions" }, actions), facts,
                el("h3", {}, "Metadata"), el("table", { id: "metadata" }, el("tbody", {}, metadata.length ? metadata : el("tr", {}, el("td", {}, "none")))),
                el("h3", {}, "Attempts"),
                el("table", { id: "attempts" },
                  el("thead", {}, el("tr", {}, ["#", "Worker", "Started", "Ended", "Outcome", "Time", "Error"].map((h) => el("th", {}, h)))),
                  el("tbody", {}, attempts.length ? attempts : el("tr", {}, el("td", { colspan: 7 }, "not started")))),
                el("h3", {}, "Input"), pre(job.input, "job-input"),
                el("h3", {}, "Output"), pre(job.output, "job-output"));
            }

            // MARK: - A job's graph

            async function graph(id) {
              const graph = await api("/api/jobs/" + encodeURIComponent(id) + "/graph");
              const depths = [...new Set(graph.nodes.map((n) => n.depth))].sort((a, b) => a - b);
              const columns = new Map(depths.map((d) => [d, graph.nodes.filter((n) => n.depth === d)]));
              const nodeWidth = 150, nodeHeight = 44, gapX = 70, gapY = 18;
              const tallest = Math.max(1, ...[...columns.values()].map((c) => c.length));
              const width = depths.length * (nodeWidth + gapX) + 20, height = tallest * (nodeHeight + gapY) + 20;
              const position = new Map();
              depths.forEach((depth, column) => {
                columns.get(depth).forEach((node, row) => {
                  position.set(node.id, { x: 10 + column * (nodeWidth + gapX), y: 10 + row * (nodeHeight + gapY) });
                });
              });
              const states = new Map(graph.nodes.map((n) => [n.id, n.state]));
              const edges = graph.edges.filter((e) => position.has(e.job) && position.has(e.dependsOn)).map((edge) => {
                const from = position.get(edge.dependsOn), to = position.get(edge.job);
                const failedPath = ["failed", "cancelled"].includes(states.get(edge.dependsOn));
                return svg("line", { class: "edge" + (failedPath ? " edge-failed" : ""), "data-from": edge.dependsOn, "data-to": edge.job,
                  x1: from.x + nodeWidth, y1: from.y + nodeHeight / 2, x2: to.x, y2: to.y + nodeHeight / 2, "marker-end": "url(#arrow)" });
              });
              const nodes = graph.nodes.map((node) => {
                const at = position.get(node.id);
                const group = svg("g", { class: "node state-" + node.state + (node.id === graph.root ? " root" : ""),
                  "data-job": node.id, "data-state": node.state, transform: "translate(" + at.x + "," + at.y + ")", tabindex: 0 },
                  svg("title", {}, "#" + node.id + " " + node.kind + ": " + node.state),
                  svg("rect", { width: nodeWidth, height: nodeHeight, rx: 6 }),
                  svg("text", { x: 8, y: 18 }, "#" + node.id + " " + node.state),
                  svg("text", { x: 8, y: 35, class: "kind" }, node.kind.length > 22 ? node.kind.slice(0, 21) + "…" : node.kind));
                group.addEventListener("click", () => { location.hash = "#/job/" + node.id; });
                return group;
              });
              const marker = svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" },
                svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow" })));
              return el("div", { class: "graph" },
                el("h2", {}, "Dependency graph of ", jobLink(graph.root)),
                el("p", { class: "legend" }, ["blocked", "available", "running", "completed", "failed", "cancelled"].map((s) => stateBadge(s)),
                  graph.truncated ? " (only the nearest " + graph.nodes.length + " jobs)" : ""),
                svg("svg", { id: "graph", width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img" }, marker, edges, nodes));
            }

            window.addEventListener("hashchange", route);
            route();
            """#
    }
#endif
