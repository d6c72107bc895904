// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/NetworkDataProcedureTests.swift (the stored version is
// the non-generic `NetworkDataProcedure` of 4.2/5.x; its `XCTAssertProcedure…` calls are written with the 5.x
// `PKAssert…` names, since the old names are deprecated here and warnings are errors).
//
// Changes besides imports:
// - `url = "http://procedure.kit.run"` is `URL(string: "http://procedure.kit.run")!`: PKNetwork does not make `URL`
//   `ExpressibleByStringLiteral` (we add no conformances to Foundation's types).
// - Closures that the procedures and observers keep are `@Sendable` in Swift 6, so they capture locals (`download`,
//   `session`) instead of `self`, and record into a lock-protected `Flag` instead of mutating a captured `var`.
// - test__session_creates_data_task: the assertion `session.didReturnDataTask == download.task` is dropped: `task`
//   is internal in ProcedureKit (read through `@testable`) and PKNetwork has no public equivalent.
// - test__download_cancels_data_task_is_cancelled: the `DelayProcedure` that cancels the download is produced by
//   the download once it has executed (ProcedureKit enqueued both together), so that the cancel cannot come before
//   the task exists on a loaded machine; `wait(for: download)` also waits for what the download produced.
// - test__download_cancelled_does_not_call_completion_handler: the handler sets a `Flag` directly instead of through
//   `DispatchQueue.onMain` (a Linux test process does not service the main queue while the handler could run).
// - test__session_error__finishes_with_error: ProcedureKit 4's `download.networkError` is 5.x's `download.error`.
//
// Left out: none.

import Foundation
import PKNetwork
import PKTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class NetworkDataProcedureTests: ProcedureKitTestCase {

    var url: URL!
    var request: URLRequest!
    var session: TestableURLSessionTaskFactory!
    var download: NetworkDataProcedure!

    override func setUp() {
        super.setUp()
        url = URL(string: "http://procedure.kit.run")!
        request = URLRequest(url: url)
        session = TestableURLSessionTaskFactory()
        download = NetworkDataProcedure(session: session, request: request)
    }

    override func tearDown() {
        url = nil
        request = nil
        session = nil
        download = nil
        super.tearDown()
    }

    func test__session_receives_request() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertEqual(session.didReceiveDataRequest?.url, url)
    }

    func test__session_creates_data_task() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertNotNil(session.didReturnDataTask)
    }

    func test__download_resumes_data_task() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertTrue(session.didReturnDataTask?.didResume ?? false)
    }

    // MARK: Cancellation

    func test__download_cancels_data_task_is_cancelled() {
        session.delay = 2.0
        let delay = DelayProcedure(by: 0.1)
        let download = self.download!
        delay.addDidFinishBlockObserver { _, _ in
            download.cancel()
        }
        download.addDidExecuteBlockObserver { procedure in
            do { try procedure.produce(operation: delay) } catch { XCTFail("\(error)") }
        }
        wait(for: download)
        PKAssertProcedureCancelled(download)
        XCTAssertTrue(session.didReturnDataTask?.didCancel ?? false)
    }

    func test__download_cancelled_while_executing() {
        session.delay = 2.0
        download.addDidExecuteBlockObserver { (procedure) in
            procedure.cancel()
        }
        wait(for: download)
        PKAssertProcedureCancelled(download)
    }

    func test__download_cancelled_does_not_call_completion_handler() {
        session.delay = 2.0
        let calledCompletionHandler = Flag()
        download = NetworkDataProcedure(session: session, request: request) { _ in
            calledCompletionHandler.set()
        }
        download.addDidExecuteBlockObserver { (procedure) in
            procedure.cancel()
        }
        wait(for: download)
        PKAssertProcedureCancelled(download)
        XCTAssertFalse(calledCompletionHandler.isSet)
    }

    // MARK: Finishing

    func test__no_requirement__finishes_with_error() {
        download = NetworkDataProcedure(session: session) { _ in }
        wait(for: download)
        PKAssertProcedureFinishedWithError(download, ProcedureKitError.requirementNotSatisfied())
    }

    func test__no_data__finishes_with_error() {
        session.returnedData = nil
        wait(for: download)
        PKAssertProcedureFinishedWithErrors(download, count: 1)
    }

    func test__session_error__finishes_with_error() {
        session.returnedError = NSError(domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet, userInfo: nil)
        wait(for: download)
        PKAssertProcedureFinishedWithErrors(download, count: 1)
        XCTAssertNotNil(download.error)
    }

    func test__completion_handler_receives_data_and_response() {
        let completionHandlerDidExecute = Flag()
        let session = self.session!
        download = NetworkDataProcedure(session: session, request: request) { result in
            XCTAssertEqual(result.value?.payload, session.returnedData)
            XCTAssertEqual(result.value?.response, session.returnedResponse)
            completionHandlerDidExecute.set()
        }
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertTrue(completionHandlerDidExecute.isSet)
    }
}
