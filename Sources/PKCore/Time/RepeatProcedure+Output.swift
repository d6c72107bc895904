extension RepeatProcedure: OutputProcedure where T: OutputProcedure {
    /// The latest attempt's output: for a ``RetryProcedure``, the successful attempt's, so results can be injected
    /// from a retry (`next.injectResult(from: retry)`). `.pending` before the first attempt runs. Setting it sets
    /// the latest attempt's output.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { current?.output ?? .pending }
        set { current?.output = newValue }
    }
}
