import Foundation

/// An error for tests: every instance is unique, so two `TestError()` values are never equal.
///
/// Compare a procedure's error with the very instance you made it fail with:
///
/// ```swift
/// let error = TestError()
/// let procedure = TestProcedure(error: error)
/// // … run it …
/// PKExpectProcedureError(procedure, equals: error)
/// ```
public struct TestError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The identity of this error; equality compares it.
    public let id: UUID

    /// Creates a new, unique error.
    public init() {
        id = UUID()
    }

    /// `TestError(<uuid>)`.
    public var description: String { "TestError(\(id.uuidString))" }
}
