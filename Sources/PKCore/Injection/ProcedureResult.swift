/// The outcome of a procedure that produces a value: the value, or the error that prevented it.
public typealias ProcedureResult<T> = Result<T, any Error>
