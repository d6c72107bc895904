import Foundation
import PKCapabilities
import PKTesting
import Testing

/// A category no other test uses: the exclusivity manager is process-wide and tests run in parallel.
func uniqueCategory(_ label: String = #function) -> String {
    "\(label)-\(UUID().uuidString)"
}

extension Procedure {
    /// The first error as a `ProcedureKitError`, if it is one.
    var kitError: ProcedureKitError? { error as? ProcedureKitError }
}

/// Adds `procedures` to a new queue and suspends until they have all finished; records an issue (instead of
/// hanging) after the hang timeout.
@discardableResult
func run(_ procedures: Procedure..., sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    await run(procedures, sourceLocation: sourceLocation)
}

/// Adds `procedures` to a new queue and suspends until they have all finished; records an issue (instead of
/// hanging) after the hang timeout.
@discardableResult
func run(_ procedures: [Procedure], sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    ProcedureQueue().add(procedures: procedures)
    return await finished(procedures, sourceLocation: sourceLocation)
}

/// Suspends until `procedures` have all finished; records an issue (instead of hanging) after the hang timeout.
@discardableResult
func finished(_ procedures: [Procedure], sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    let done = await waitForFinish(procedures, timeout: hangTimeout)
    if !done {
        let names = procedures.filter { !$0.isFinished }.map(\.procedureName)
        Issue.record("timed out waiting for \(names) to finish", sourceLocation: sourceLocation)
    }
    return done
}

/// Moves `clock` forward by `step`, again and again, until every procedure has finished; records an issue
/// (instead of hanging) after the hang timeout. For timeouts whose exact moment a test does not check: it works
/// whenever the code under test gets round to scheduling its action (a procedure may first wait for a mutually
/// exclusive category that another test holds).
@discardableResult
func advance(
    _ clock: ManualClock, by step: Duration, until procedures: [Procedure],
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
    await eventually("\(procedures.map(\.procedureName)) to finish as the clock moves", sourceLocation: sourceLocation)
    {
        if procedures.allSatisfy(\.isFinished) { return true }
        clock.advance(by: step)
        return false
    }
}

/// Suspends until `condition` holds, polling; records an issue (instead of hanging) after the hang timeout.
@discardableResult
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(hangTimeout)
    while !condition() {
        if Date() >= deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// A thread-safe box for a value tests read after callbacks set it.
final class Box<Value: Sendable>: Sendable {
    private let storage: PKMutex<Value>

    init(_ value: Value) {
        storage = PKMutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func update(_ body: @Sendable (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}

/// A directory of its own under the system's temporary directory, removed by ``remove()``.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = #function) throws {
        let name = "pkcap-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Writes `text` to `name` with `permissions`, and returns its path.
    @discardableResult
    func write(_ text: String, to name: String, permissions: Int = 0o644) throws -> String {
        let path = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        return path
    }

    /// Makes everything inside writable again (tests take permissions away), then removes the directory.
    func remove() {
        if let entries = FileManager.default.enumerator(atPath: path) {
            for case let entry as String in entries {
                try? FileManager.default.setAttributes(
                    [.posixPermissions: 0o700], ofItemAtPath: (path as NSString).appendingPathComponent(entry))
            }
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        try? FileManager.default.removeItem(atPath: path)
    }
}
