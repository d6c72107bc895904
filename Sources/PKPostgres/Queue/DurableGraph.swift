#if Postgres
    import Foundation
    import PKCore

    /// A graph of durable jobs to enqueue together, in one transaction: the durable counterpart of a
    /// `GroupProcedure`. Nodes can depend only on nodes added before them, so a graph is acyclic by construction.
    ///
    /// ```swift
    /// let graph = DurableGraph()
    /// let fetch = graph.add(Fetch.self, input: url)
    /// let parse = graph.add(Parse.self, inputFrom: fetch)          // fetch's output is parse's input
    /// let index = graph.add(Index.self, input: .all, after: [parse])
    /// let enqueued = try queue.enqueue(graph)
    /// let summary = try await queue.waitUntilFinished(graph: enqueued.id)
    /// ```
    ///
    /// Not thread-safe: build it on one thread, then enqueue it.
    public final class DurableGraph {
        /// A job of the graph before it is enqueued.
        public struct Node: Hashable, Sendable {
            let index: Int
            /// The graph the node belongs to: a node of another graph is refused at enqueue.
            let graph: ObjectIdentifier
        }

        struct Entry {
            let kind: String
            let input: String?
            var options: DurableJobOptions
            let after: [Node]
            let inputFrom: Node?
        }

        private(set) var entries: [Entry] = []
        /// Encoding errors, thrown at enqueue.
        private(set) var problems: [any Error] = []

        /// Creates an empty graph.
        public init() {}

        /// The number of jobs.
        public var count: Int { entries.count }

        /// Adds a job of `type` with `input`, to start after the jobs `after` finish.
        ///
        /// `options.dependencies` may also name jobs enqueued earlier outside the graph.
        @discardableResult
        public func add<P: DurableProcedure>(
            _ type: P.Type, input: P.Input, options: DurableJobOptions = DurableJobOptions(), after: [Node] = []
        ) -> Node {
            var json: String?
            do { json = try DurableCoding.encode(input) } catch { problems.append(error) }
            return append(Entry(kind: P.kind, input: json, options: options, after: after, inputFrom: nil))
        }

        /// Adds a job of `type` whose input is the output of `source` (which it depends on), to start after it and
        /// the jobs `after` finish: the durable `injectResult(from:)`.
        @discardableResult
        public func add<P: DurableProcedure>(
            _ type: P.Type, inputFrom source: Node, options: DurableJobOptions = DurableJobOptions(),
            after: [Node] = []
        ) -> Node {
            append(Entry(kind: P.kind, input: nil, options: options, after: after, inputFrom: source))
        }

        private func append(_ entry: Entry) -> Node {
            for node in entry.after + (entry.inputFrom.map { [$0] } ?? []) {
                if node.graph != ObjectIdentifier(self) {
                    problems.append(
                        DurableError.invalidOption("a graph node can depend only on nodes of its own graph"))
                } else if node.index >= entries.count {
                    problems.append(DurableError.invalidOption("a graph node can depend only on nodes added before it"))
                }
            }
            entries.append(entry)
            return Node(index: entries.count - 1, graph: ObjectIdentifier(self))
        }
    }

    /// A graph as enqueued: its id and its jobs.
    public struct EnqueuedGraph: Sendable, Hashable {
        /// The graph.
        public let id: GraphID
        /// Its jobs, in the order their nodes were added.
        public let jobs: [JobID]

        /// The job of `node`.
        public subscript(_ node: DurableGraph.Node) -> JobID { jobs[node.index] }
    }
#endif
