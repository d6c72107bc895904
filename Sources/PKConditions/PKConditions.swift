// PKConditions: the concrete conditions (BlockCondition, TrueCondition, FalseCondition, MutuallyExclusive, the
// composed wrappers, AndCondition / OrCondition, NoFailedDependenciesCondition and UserConfirmationCondition).
// The machinery that evaluates them lives in PKCore.
//
// Importing PKConditions also imports PKCore, so `import PKConditions` is enough to use procedures and queues.
@_exported import PKCore
