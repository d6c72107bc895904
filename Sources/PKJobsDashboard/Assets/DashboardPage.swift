#if Postgres
    /// The dashboard's page (`/`) and style sheet (`/assets/app.css`). The page carries no data: its script fetches
    /// everything from the JSON API. What it does carry, the CSRF token and the read-only flag, is escaped.
    enum DashboardPage {
        /// The page, with the CSRF token state-changing requests must send and whether actions are shown.
        static func html(csrfToken: String, readOnly: Bool, schema: String) -> String {
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf-token" content="\(escape(csrfToken))">
            <meta name="read-only" content="\(readOnly ? "true" : "false")">
            <title>pk-jobs · \(escape(schema))</title>
            <link rel="stylesheet" href="/assets/app.css">
            <script src="/assets/app.js" defer></script>
            </head>
            <body>
            <header>
            <h1>pk-jobs <small>\(escape(schema))\(readOnly ? " · read-only" : "")</small></h1>
            <nav><a href="#/" id="nav-overview">Overview</a> <a href="#/jobs" id="nav-jobs">Jobs</a> <a href="#/jobs?state=failed" id="nav-failed">Failed</a></nav>
            <span id="status" role="status"></span>
            </header>
            <main id="main"><p>Loading…</p></main>
            <noscript>The dashboard needs JavaScript; the JSON API under /api works without it.</noscript>
            </body>
            </html>
            """
        }

        /// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe in element content and in
        /// quoted attribute values.
        static func escape(_ text: String) -> String {
            var escaped = ""
            escaped.reserveCapacity(text.utf8.count)
            for character in text {
                switch character {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "\"": escaped += "&quot;"
                case "'": escaped += "&#39;"
                default: escaped.append(character)
                }
            }
            return escaped
        }

        static let css = """
            :root { --ink: #1d2330; --muted: #5d6677; --line: #d9dde5; --bg: #f7f8fa; font-family: system-ui, sans-serif; }
            body { margin: 0; color: var(--ink); background: var(--bg); }
            header { display: flex; gap: 1.5rem; align-items: baseline; padding: .6rem 1.2rem; background: #fff;
              border-bottom: 1px solid var(--line); }
            header h1 { font-size: 1.1rem; margin: 0; } header small { color: var(--muted); font-weight: normal; }
            nav a { margin-right: .8rem; }
            #status { margin-left: auto; color: var(--muted); font-size: .85rem; } #status.error { color: #b3261e; }
            main { padding: 1rem 1.2rem; }
            h2 { font-size: 1rem; margin: 1.4rem 0 .5rem; } h3 { font-size: .95rem; margin: 1.1rem 0 .4rem; }
            table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); font-size: .88rem; }
            th, td { padding: .3rem .6rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
            td.count { text-align: right; font-variant-numeric: tabular-nums; }
            .paused { color: #b26a00; font-weight: normal; }
            .state { display: inline-block; padding: 0 .4rem; border-radius: .6rem; font-size: .8rem; }
            .state-blocked { background: #e4e7ec; } .state-available { background: #dbe8ff; }
            .state-running { background: #fff1c2; } .state-completed { background: #d5f2dc; }
            .state-failed { background: #ffd9d6; } .state-cancelled { background: #ece3f7; }
            .error-text { color: #b3261e; max-width: 36rem; overflow-wrap: anywhere; }
            .held { display: block; }
            .actions { margin: .5rem 0; } .actions button { margin-right: .4rem; }
            dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
            dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
            pre { background: #fff; border: 1px solid var(--line); padding: .6rem; max-height: 24rem; overflow: auto;
              white-space: pre-wrap; overflow-wrap: anywhere; }
            #throughput { background: #fff; border: 1px solid var(--line); }
            .bar-completed { fill: #3d9a5b; } .bar-failed { fill: #c8473d; } .axis { fill: var(--muted); font-size: 10px; }
            #graph { background: #fff; border: 1px solid var(--line); }
            .node { cursor: pointer; } .node rect { stroke: #8a93a5; stroke-width: 1; }
            .node.root rect { stroke: var(--ink); stroke-width: 2.5; }
            .node text { font-size: 12px; fill: var(--ink); } .node text.kind { fill: var(--muted); font-size: 11px; }
            .node.state-blocked rect { fill: #e4e7ec; } .node.state-available rect { fill: #dbe8ff; }
            .node.state-running rect { fill: #fff1c2; } .node.state-completed rect { fill: #d5f2dc; }
            .node.state-failed rect { fill: #ffd9d6; stroke: #b3261e; stroke-width: 2; }
            .node.state-cancelled rect { fill: #ece3f7; }
            .edge { stroke: #8a93a5; stroke-width: 1.5; } .edge-failed { stroke: #b3261e; stroke-width: 2.5; }
            .arrow { fill: #8a93a5; }
            .legend .state { margin-right: .3rem; }
            """
    }
#endif
