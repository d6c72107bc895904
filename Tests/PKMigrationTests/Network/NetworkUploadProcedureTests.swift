// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/NetworkUploadProcedureTests.swift (the stored 5.x
// version: non-generic `NetworkUploadProcedure`; its remaining `XCTAssertProcedure…` calls are written with the
// `PKAssert…` names, since the old names are deprecated here and warnings are errors).
//
// Changes besides imports:
// - `url = "http://procedure.kit.run"` is `URL(string: "http://procedure.kit.run")!`: PKNetwork does not make `URL`
//   `ExpressibleByStringLiteral` (we add no conformances to Foundation's types).
// - Closures that the procedures and observers keep are `@Sendable` in Swift 6, so they capture locals (`upload`,
//   `session`) instead of `self`, and record into a lock-protected `Flag` instead of mutating a captured `var`.
// - test__session_creates_upload_task: the assertion `session.didReturnUploadTask == upload.task` is dropped: `task`
//   is internal in ProcedureKit (read through `@testable`) and PKNetwork has no public equivalent.
// - test__upload_cancels_data_task_is_cancelled: the `DelayProcedure` that cancels the upload is produced by the
//   upload once it has executed (ProcedureKit enqueued both together), so that the cancel cannot come before the
//   task exists on a loaded machine; `wait(for: upload)` also waits for what the upload produced.
// - test__upload_cancelled_does_not_call_completion_handler: the handler sets a `Flag` directly instead of through
//   `DispatchQueue.onMain` (a Linux test process does not service the main queue while the handler could run).
//
// - test__no_data__finishes_with_error also asserts that the error is `ProcedureKitError.unknown`, as ProcedureKit 5's
//   procedures finish (this version of the file only counts one error).
//
// Left out: none.

import Foundation
import PKNetwork
import PKTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class NetworkUploadProcedureTests: ProcedureKitTestCase {

    var url: URL!
    var request: URLRequest!
    var sendingData: Data!
    var session: TestableURLSessionTaskFactory!
    var upload: NetworkUploadProcedure!

    override func setUp() {
        super.setUp()
        url = URL(string: "http://procedure.kit.run")!
        sendingData = "hello world".data(using: .utf8)

        request = URLRequest(url: url)
        session = TestableURLSessionTaskFactory()
        upload = NetworkUploadProcedure(session: session, request: request, data: sendingData)
    }

    override func tearDown() {
        url = nil
        request = nil
        session = nil
        upload = nil
        super.tearDown()
    }

    func test__session_receives_request() {
        wait(for: upload)
        PKAssertProcedureFinished(upload)
        XCTAssertEqual(session.didReceiveUploadRequest?.url, url)
    }

    func test__session_creates_upload_task() {
        wait(for: upload)
        PKAssertProcedureFinished(upload)
        XCTAssertNotNil(session.didReturnUploadTask)
    }

    func test__upload_resumes_data_task() {
        wait(for: upload)
        PKAssertProcedureFinished(upload)
        XCTAssertTrue(session.didReturnUploadTask?.didResume ?? false)
    }

    // MARK: Cancellation

    func test__upload_cancels_data_task_is_cancelled() {
        session.delay = 2.0
        let delay = DelayProcedure(by: 0.1)
        let upload = self.upload!
        delay.addDidFinishBlockObserver { _, _ in
            upload.cancel()
        }
        upload.addDidExecuteBlockObserver { procedure in
            do { try procedure.produce(operation: delay) } catch { XCTFail("\(error)") }
        }
        wait(for: upload)
        PKAssertProcedureCancelled(upload)
        XCTAssertTrue(session.didReturnUploadTask?.didCancel ?? false)
    }

    func test__upload_cancelled_while_executing() {
        session.delay = 2.0
        upload.addDidExecuteBlockObserver { (procedure) in
            procedure.cancel()
        }
        wait(for: upload)
        PKAssertProcedureCancelled(upload)
    }

    func test__upload_cancelled_does_not_call_completion_handler() {
        session.delay = 2.0
        let calledCompletionHandler = Flag()
        upload = NetworkUploadProcedure(session: session, request: request, data: sendingData) { _ in
            calledCompletionHandler.set()
        }
        upload.addDidExecuteBlockObserver { (procedure) in
            procedure.cancel()
        }
        wait(for: upload)
        PKAssertProcedureCancelled(upload)
        XCTAssertFalse(calledCompletionHandler.isSet)
    }

    // MARK: Finishing

    func test__no_requirement__finishes_with_error() {
        upload = NetworkUploadProcedure(session: session) { _ in }
        wait(for: upload)
        PKAssertProcedureFinishedWithErrors(upload, count: 1)
        XCTAssertEqual(upload.errors.first as? ProcedureKitError, ProcedureKitError.requirementNotSatisfied())
    }

    func test__no_data__finishes_with_error() {
        session.returnedData = nil
        wait(for: upload)
        PKAssertProcedureFinishedWithErrors(upload, count: 1)
        PKAssertProcedureFinishedWithError(upload, ProcedureKitError.unknown)
    }

    func test__session_error__finishes_with_error() {
        session.returnedError = NSError(domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet, userInfo: nil)
        wait(for: upload)
        PKAssertProcedureFinishedWithErrors(upload, count: 1)
        XCTAssertNotNil(upload.error)
    }

    func test__completion_handler_receives_data_and_response() {
        let completionHandlerDidExecute = Flag()
        let session = self.session!
        upload = NetworkUploadProcedure(session: session, request: request, data: sendingData) { result in
            XCTAssertEqual(result.value?.payload, session.returnedData)
            XCTAssertEqual(result.value?.response, session.returnedResponse)
            completionHandlerDidExecute.set()
        }
        wait(for: upload)
        PKAssertProcedureFinished(upload)
        XCTAssertTrue(completionHandlerDidExecute.isSet)
    }

}
