// PKTesting: a framework-neutral test harness for code built on PKCore.
//
// Importing PKTesting also imports PKCore, so a test file needs only `import PKTesting`.
//
// What is here, one concept per file:
// - `TestError`, `TestProcedure`: fixtures.
// - `EventRecorder`: a recording observer that also detects overlapping callbacks.
// - `ProcedureWaiter`: blocking and async waits with timeouts.
// - `LeakCheck`: weak-reference release checks.
// - `ProcedureCheck`: the pure checks behind every assertion (they return failure messages).
// - `PKExpect…` (Swift Testing) and `PKAssert…` (XCTest): front ends that report those failures.
// - `TestCondition`, `AsyncTestCondition`, `QueueTestDelegate`, `TestableLogWriter`: recording fixtures.
// - `ProcedureKitTestCase`, `GroupTestCase`, `RepeatTestCase`, `RetryTestCase`: XCTest base classes with
//   ProcedureKit's helpers, so TestingProcedureKit suites port with an import change.
// - `MutualExclusion`: resets the process-wide mutual-exclusion state between tests.
// - `ManualClock`: a clock tests drive by hand.
// - `TestableCapability`, `TestableCapabilityTestCase` and their checks: a capability for tests (PKCapabilities).
@_exported import PKCore
