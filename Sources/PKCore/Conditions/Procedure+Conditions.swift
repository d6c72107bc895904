extension Procedure {

    /// Adds a condition that must hold before the procedure executes.
    ///
    /// Allowed until the procedure is added to a queue; afterwards the condition is ignored with an error logged.
    /// Conditions are evaluated in the order they were added, after the procedure's dependencies have finished;
    /// the first failure decides. A failed condition cancels the procedure with the error the condition reported
    /// (its name is logged); an ignored one cancels it without an error, even when other conditions are satisfied.
    /// Either way the procedure finishes without executing.
    public final func add(condition: Condition) {
        let added = storage.withLock { state -> Bool in
            guard state.machine.state == .initialized else { return false }
            if !state.conditions.contains(where: { $0 === condition }) { state.conditions.append(condition) }
            return true
        }
        if !added {
            Log.write(
                .warning,
                "condition \(condition.conditionName) added to \(procedureName) after it was enqueued; ignored",
                subsystem: procedureName)
        }
    }

    /// Adds a condition. The same as ``add(condition:)``.
    public final func addCondition(_ condition: Condition) {
        add(condition: condition)
    }

    /// The conditions, in the order they were added.
    public final var conditions: [Condition] {
        storage.withLock { $0.conditions }
    }
}
