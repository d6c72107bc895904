import Foundation
import PKTesting
import XCTest

final class TransformProcedureTests: ProcedureKitTestCase {

    func test__requirement_is_transformed_to_result() {
        let timesTwo = TransformProcedure<Int, Int> { $0 * 2 }
        timesTwo.input = .ready(2)
        wait(for: timesTwo)
        PKAssertProcedureOutput(timesTwo, 4)
    }

    func test__requirement_is_nil_finishes_with_error() {
        let timesTwo = TransformProcedure<Int, Int> { $0 * 2 }
        wait(for: timesTwo)
        PKAssertProcedureFinishedWithError(timesTwo, ProcedureKitError.requirementNotSatisfied())
        XCTAssertEqual(timesTwo.output.error as? ProcedureKitError, ProcedureKitError.requirementNotSatisfied())
    }

    func test__transform_which_throws_finishes_with_error() {
        let error = TestError()
        let transform = TransformProcedure<Int, Int> { _ in throw error }
        transform.input = .ready(2)
        wait(for: transform)
        PKAssertProcedureFinishedWithError(transform, error)
    }
}

final class AsyncTransformProcedureTests: ProcedureKitTestCase {

    func test__requirement_is_transformed_to_result() {
        let timesTwo = AsyncTransformProcedure<Int, Int> { input, finish in
            DispatchQueue.initiated.async { finish(.success(input * 2)) }
        }
        timesTwo.input = .ready(2)
        wait(for: timesTwo)
        PKAssertProcedureOutput(timesTwo, 4)
    }

    func test__requirement_is_nil_finishes_with_error() {
        let blockDidExecute = Flag()
        let timesTwo = AsyncTransformProcedure<Int, Int> { input, finish in
            blockDidExecute.set()
            finish(.success(input * 2))
        }
        wait(for: timesTwo)
        PKAssertProcedureFinishedWithError(timesTwo, ProcedureKitError.requirementNotSatisfied())
        XCTAssertFalse(blockDidExecute.isSet)
    }
}

final class MapProcedureTests: ProcedureKitTestCase {

    func test__map() {
        let map = MapProcedure(source: [0, 1, 2, 3, 4, 5, 6, 7]) { $0 * 2 }
        wait(for: map)
        PKAssertProcedureOutput(map, [0, 2, 4, 6, 8, 10, 12, 14])
    }

    func test__map_which_throws_finishes_with_error() {
        let error = TestError()
        let map = MapProcedure<Int, Int>(source: [0, 1, 2]) { _ in throw error }
        wait(for: map)
        PKAssertProcedureFinishedWithError(map, error)
    }

    func test__map_dependency_which_finishes_without_errors() {
        let numbers = makeNumbersProcedure()
        let map = numbers.map { $0 * 2 }
        wait(for: numbers, map)
        PKAssertProcedureOutput(map, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
    }

    func test__map_dependency_which_finishes_with_errors() {
        let error = TestError()
        let numbers = makeNumbersProcedure(error: error)
        let map = numbers.map { $0 * 2 }
        wait(for: numbers, map)
        PKAssertProcedureFinishedWithError(numbers, error)
        PKAssertProcedureCancelledWithError(map, ProcedureKitError.dependency(finishedWithError: error))
    }
}

final class FlatMapProcedureTests: ProcedureKitTestCase {

    func test__flat_map() {
        let flatMap = FlatMapProcedure(source: Array(0...9)) { $0 % 2 == 0 ? $0 * 2 : nil }
        wait(for: flatMap)
        PKAssertProcedureOutput(flatMap, [0, 4, 8, 12, 16])
    }

    func test__flat_map_which_throws_finishes_with_error() {
        let error = TestError()
        let flatMap = FlatMapProcedure<Int, Int>(source: Array(0...9)) { _ in throw error }
        wait(for: flatMap)
        PKAssertProcedureFinishedWithError(flatMap, error)
    }

    func test__flat_map_dependency_which_finishes_without_errors() {
        let numbers = makeNumbersProcedure()
        let flatMap = numbers.flatMap { $0 % 3 == 0 ? "\($0)" : nil }
        wait(for: numbers, flatMap)
        PKAssertProcedureOutput(flatMap, ["0", "3", "6", "9"])
    }

    func test__flat_map_dependency_which_finishes_with_errors() {
        let error = TestError()
        let numbers = makeNumbersProcedure(error: error)
        let flatMap = numbers.flatMap { $0 % 3 == 0 ? "\($0)" : nil }
        wait(for: numbers, flatMap)
        PKAssertProcedureCancelledWithError(flatMap, ProcedureKitError.dependency(finishedWithError: error))
    }
}

final class FilterProcedureTests: ProcedureKitTestCase {

    func test__filter() {
        let filter = FilterProcedure(source: [0, 1, 2, 3, 4, 5, 6, 7]) { $0 % 2 == 0 }
        wait(for: filter)
        PKAssertProcedureOutput(filter, [0, 2, 4, 6])
    }

    func test__filter_which_throws_finishes_with_error() {
        let error = TestError()
        let filter = FilterProcedure(source: [0, 1, 2]) { _ in throw error }
        wait(for: filter)
        PKAssertProcedureFinishedWithError(filter, error)
    }

    func test__filter_dependency_which_finishes_without_errors() {
        let numbers = makeNumbersProcedure()
        let filter = numbers.filter { $0 % 2 == 0 }
        wait(for: numbers, filter)
        PKAssertProcedureOutput(filter, [0, 2, 4, 6, 8])
    }

    func test__filter_dependency_which_finishes_with_errors() {
        let error = TestError()
        let numbers = makeNumbersProcedure(error: error)
        let filter = numbers.filter { $0 % 2 == 0 }
        wait(for: numbers, filter)
        PKAssertProcedureCancelledWithError(filter, ProcedureKitError.dependency(finishedWithError: error))
    }
}

final class ReduceProcedureTests: ProcedureKitTestCase {

    func test__reduce() {
        let reduce = ReduceProcedure(source: Array(0...9), initial: 0) { $0 + $1 }
        wait(for: reduce)
        PKAssertProcedureOutput(reduce, 45)
    }

    func test__reduce_which_throws_finishes_with_error() {
        let error = TestError()
        let reduce = ReduceProcedure<Int, Int>(source: Array(0...9), initial: 0) { _, _ in throw error }
        wait(for: reduce)
        PKAssertProcedureFinishedWithError(reduce, error)
    }

    func test__reduce_dependency_which_finishes_without_errors() {
        let numbers = makeNumbersProcedure()
        let reduce = numbers.reduce(0, nextPartialResult: +)
        wait(for: numbers, reduce)
        PKAssertProcedureOutput(reduce, 45)
    }

    func test__reduce_dependency_which_finishes_with_errors() {
        let error = TestError()
        let numbers = makeNumbersProcedure(error: error)
        let reduce = numbers.reduce(0, nextPartialResult: +)
        wait(for: numbers, reduce)
        PKAssertProcedureFinishedWithError(numbers, error)
        PKAssertProcedureCancelledWithError(reduce, ProcedureKitError.dependency(finishedWithError: error))
    }
}
