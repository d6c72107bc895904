import Foundation
import PKTesting
import XCTest

/// ProcedureKit's `DataProcessing`: needs a `String` input, produces no value.
private final class DataProcessing: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `input` and `output` live in Protectors; the superclass guards its own state.
    private let inputValue = Protector<Pending<String>>(.pending)
    private let outputValue = Protector<Pending<ProcedureResult<Void>>>(.pending)

    var input: Pending<String> {
        get { inputValue.access }
        set { inputValue.overwrite(with: newValue) }
    }

    var output: Pending<ProcedureResult<Void>> {
        get { outputValue.access }
        set { outputValue.overwrite(with: newValue) }
    }

    override func execute() {
        guard let value = input.value else {
            finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        log.info.message("Processing: \(value)")
        finish(withResult: success)
    }
}

/// ProcedureKit's `Printing`: its input has a default, so it always has something to print.
private final class Printing: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `input` lives in a Protector; the superclass guards its own state.
    private let inputValue = Protector<Pending<String>>(.ready("Default Requirement"))

    var input: Pending<String> {
        get { inputValue.access }
        set { inputValue.overwrite(with: newValue) }
    }

    override func execute() {
        log.info.message("\(input.value ?? "")")
        finish()
    }
}

/// A group whose input goes to its first child and whose output comes from its last (ProcedureKit's binding
/// example).
private final class BindingGroup: GroupProcedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `input` and `output` live in Protectors; the superclass guards its own state.
    private let inputValue = Protector<Pending<String>>(.pending)
    private let outputValue = Protector<Pending<ProcedureResult<String>>>(.pending)

    var input: Pending<String> {
        get { inputValue.access }
        set { inputValue.overwrite(with: newValue) }
    }

    var output: Pending<ProcedureResult<String>> {
        get { outputValue.access }
        set { outputValue.overwrite(with: newValue) }
    }

    init() {
        let world = TransformProcedure<String, String> { "\($0) World" }
        let result = TransformProcedure<String, String> { "\($0), we are running on ProcedureKit" }
        result.injectResult(from: world)
        super.init(operations: [world, result])
        bind(to: world)
        bind(from: result)
    }
}

final class ResultInjectionTests: ProcedureKitTestCase {

    private var processing: DataProcessing!
    private var printing: Printing!

    override func setUp() {
        super.setUp()
        processing = DataProcessing()
        printing = Printing()
    }

    override func tearDown() {
        processing = nil
        printing = nil
        super.tearDown()
    }

    func test__block_is_executed() {
        let blockDidExecute = Flag()
        processing.inject(dependency: procedure) { processing, dependency, _ in
            processing.input = dependency.output.success.pending
            blockDidExecute.set()
        }
        wait(for: procedure, processing)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(processing)
    }

    func test__block_passes_through_errors() {
        let error = TestError()
        let dependency = TestProcedure(error: error)
        let received = Protector<TestError?>(nil)
        processing.inject(dependency: dependency) { processing, _, dependencyError in
            received.overwrite(with: dependencyError as? TestError)
            processing.cancel(with: dependencyError)
        }
        wait(for: dependency, processing)
        XCTAssertEqual(received.access, error)
        PKAssertProcedureCancelledWithError(processing, error)
    }

    func test__block_which_throws_cancels_the_receiver_with_the_error() {
        let error = TestError()
        processing.inject(dependency: procedure) { _, _ in throw error }
        wait(for: procedure, processing)
        PKAssertProcedureCancelledWithError(processing, error)
    }

    func test__automatic_requirement_is_injected() {
        processing.injectResult(from: procedure)
        wait(for: procedure, processing)
        PKAssertProcedureFinished(processing)
        XCTAssertEqual(processing.input.value, "Hello World")
    }

    func test__requirement_is_injected_via_a_transform() {
        processing.injectResult(from: procedure, via: { $0.uppercased() })
        wait(for: procedure, processing)
        PKAssertProcedureFinished(processing)
        XCTAssertEqual(processing.input.value, "HELLO WORLD")
    }

    func test__receiver_cancels_with_error_if_dependency_errors() {
        let error = TestError()
        let dependency = TestProcedure(error: error)
        processing.injectResult(from: dependency)
        wait(for: dependency, processing)
        PKAssertProcedureFinishedWithError(dependency, error)
        PKAssertProcedureCancelledWithError(processing, ProcedureKitError.dependency(finishedWithError: error))
        let underlying = (processing.error as? ProcedureKitError)?.underlyingErrors
        XCTAssertEqual(underlying?.compactMap { $0 as? TestError }, [error])
    }

    func test__receiver_cancels_with_errors_if_requirement_not_met() {
        procedure.addWillFinishBlockObserver { procedure, _, _ in procedure.output = .pending }
        printing.injectResult(from: procedure)
        wait(for: procedure, printing)
        PKAssertProcedureCancelledWithError(printing, ProcedureKitError.requirementNotSatisfied())
    }

    func test__receiver_cancels_if_dependency_is_cancelled() {
        let dependency = createCancellingProcedure()
        printing.injectResult(from: dependency)
        wait(for: dependency, printing)
        PKAssertProcedureCancelled(dependency)
        PKAssertProcedureCancelledWithError(printing, ProcedureKitError.dependenciesCancelled())
    }

    func test__automatic_unwrap_when_result_is_optional_requrement() {
        let hello = ResultProcedure<String?> { "Hello, World" }
        printing.injectResult(from: hello)
        wait(for: hello, printing)
        PKAssertProcedureFinished(printing)
        XCTAssertEqual(printing.input.value, "Hello, World")
    }

    func test__automatic_unwrap_when_result_is_nil_optional_requrement() {
        let hello = ResultProcedure<String?> { nil }
        printing.injectResult(from: hello)
        wait(for: hello, printing)
        PKAssertProcedureCancelledWithError(printing, ProcedureKitError.requirementNotSatisfied())
    }

    func test__collection_flatMap() {
        let hello = ResultProcedure { "Hello" }
        let world = ResultProcedure { "World" }
        let uppercased = [world, hello].flatMap { $0.uppercased() }
        wait(for: hello, world, uppercased)
        PKAssertProcedureOutput(uppercased, ["WORLD", "HELLO"])
    }

    func test__collection_reduce() {
        let hello = ResultProcedure { "Hello" }
        let world = ResultProcedure { "World" }
        let greeting = [hello, world].reduce("") { accumulator, element in
            accumulator.isEmpty ? element : "\(accumulator) \(element)"
        }
        wait(for: hello, world, greeting)
        PKAssertProcedureOutput(greeting, "Hello World")
    }

    func test__collection_reduce_which_throws_finishes_with_error() {
        let error = TestError()
        let hello = ResultProcedure { "Hello" }
        let world = ResultProcedure { "World" }
        let greeting = [hello, world].reduce("") { _, _ in throw error }
        wait(for: hello, world, greeting)
        PKAssertProcedureFinishedWithError(greeting, error)
        XCTAssertNil(greeting.output.success)
    }

    func test__collection_gather() {
        let hello = ResultProcedure { "Hello" }
        let world = ResultProcedure { "World" }
        let gathered = [hello, world].gathered()
        wait(for: hello, world, gathered)
        PKAssertProcedureOutput(gathered, ["Hello", "World"])
    }

    func test__collection_gather_cancels_when_an_element_fails() {
        let error = TestError()
        let hello = ResultProcedure { "Hello" }
        let failing = ResultProcedure<String> { throw error }
        let gathered = [hello, failing].gathered()
        wait(for: hello, failing, gathered)
        // Differs from ProcedureKit: a failed element cancels the gathering procedure instead of being skipped.
        PKAssertProcedureCancelledWithError(gathered, ProcedureKitError.dependency(finishedWithError: error))
    }

    func test__input_binding() {
        let hello = ResultProcedure { "Hello" }
        let world = TransformProcedure<String, String> { "\($0) World" }.injectResult(from: hello)
        let dan = TransformProcedure<String, String> { "\($0) Dan" }
        world.bind(to: dan)
        dan.addDependency(world)
        wait(for: hello, world, dan)
        PKAssertProcedureOutput(world, "Hello World")
        PKAssertProcedureOutput(dan, "Hello Dan")
    }

    func test__binding() {
        let hello = ResultProcedure { "Hello" }
        let group = BindingGroup()
        group.injectResult(from: hello)
        wait(for: hello, group)
        PKAssertProcedureOutput(group, "Hello World, we are running on ProcedureKit")
    }
}
