import PKCore

// W26: what a procedure that produces a value costs over a BlockProcedure. The generic procedures
// (`ResultProcedure`, `TransformProcedure`, `AsyncResultProcedure`) are PKCore classes the benchmark, like any user,
// calls from another module; each contender adds `count` of them to one queue, waits, and reads every output back.

/// `count` `BlockProcedure`s that each store their index in a slot of their own, summed after the wait: as much to
/// do as the procedures that return a value, with no lock between them, made and added as theirs are.
private func blockProcedures(_ count: Int) -> Int {
    let queue = ProcedureQueue()
    let slots = Slots(count)
    defer { slots.deallocate() }
    let procedures = (0..<count).map { index in BlockProcedure { slots.store(index, at: index) } }
    queue.add(procedures: procedures)
    queue.waitUntilAllOperationsAreFinished()
    return slots.sum
}

/// `count` `ResultProcedure<Int>`s returning their index.
private func resultProcedures(_ count: Int) -> Int {
    addWaitAndSum((0..<count).map { index in ResultProcedure { index } })
}

/// `count` `TransformProcedure<Int, Int>`s given their index as input before they are added.
private func transformProcedures(_ count: Int) -> Int {
    addWaitAndSum(
        (0..<count).map { index in
            let procedure = TransformProcedure<Int, Int> { $0 }
            procedure.input = .ready(index)
            return procedure
        })
}

/// `count` `AsyncResultProcedure<Int>`s whose callback completes at once with their index.
private func asyncResultProcedures(_ count: Int) -> Int {
    addWaitAndSum((0..<count).map { index in AsyncResultProcedure<Int> { completion in completion(.success(index)) } })
}

/// Adds `procedures` to a new queue, waits for them and sums their outputs, read back after the wait.
private func addWaitAndSum<P: OutputProcedure>(_ procedures: [P]) -> Int where P.Output == Int {
    let queue = ProcedureQueue()
    queue.add(procedures: procedures)
    queue.waitUntilAllOperationsAreFinished()
    return procedures.reduce(0) { $0 &+ ($1.output.success ?? 0) }
}

/// One `Int` per procedure, each written by one procedure only and read after the queue is waited for.
private struct Slots: @unchecked Sendable {
    // @unchecked Sendable: no lock of its own. Each slot is written by one procedure only, and the queue's mutex,
    // taken as each procedure finishes and by `waitUntilAllOperationsAreFinished()`, orders those writes before
    // `sum` reads them.
    private let buffer: UnsafeMutableBufferPointer<Int>
    init(_ count: Int) { buffer = .allocate(capacity: count) }
    func store(_ value: Int, at index: Int) { buffer[index] = value }
    var sum: Int { buffer.reduce(0, &+) }
    func deallocate() { buffer.deallocate() }
}

/// The W26 workload: each kind of value-producing procedure against a `BlockProcedure`, target ≤ 1.2× for each.
func outputProcedureWorkload(count: Int) -> Workload {
    let expected = (0..<count).reduce(0, &+)
    func check(_ sum: Int) { precondition(sum == expected, "W26: a contender lost a value") }
    let names = (
        block: "BlockProcedure", result: "ResultProcedure<Int>", transform: "TransformProcedure<Int, Int>",
        async: "AsyncResultProcedure<Int> (callback)"
    )
    return Workload(
        id: "W26", title: "\(count) independent procedures producing a value, outputs read back", operations: count,
        contenders: [
            (names.result, { check(resultProcedures(count)) }),
            (names.transform, { check(transformProcedures(count)) }),
            (names.async, { check(asyncResultProcedures(count)) }),
            (names.block, { check(blockProcedures(count)) }),
        ],
        target: { m in
            let result = ratio(m, names.result, names.block)
            let transform = ratio(m, names.transform, names.block)
            let async = ratio(m, names.async, names.block)
            return (
                String(
                    format: "each ≤1.2×BlockProcedure (result %.2f, transform %.2f, async %.2f)", result, transform,
                    async),
                max(result, transform, async) <= 1.2
            )
        })
}
