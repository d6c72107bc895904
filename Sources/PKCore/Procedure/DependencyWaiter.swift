/// Something that waits for dependencies and is told when one of them finishes.
protocol DependencyWaiter: AnyObject, Sendable {
    /// One dependency this waiter registered with has finished.
    func dependencyDidFinish()
}
