// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/NetworkDownloadProcedureTests.swift (the stored 5.x
// version: non-generic `NetworkDownloadProcedure`, `PKAssert…` assertions).
//
// Changes besides imports:
// - `url = "http://procedure.kit.run"` is `URL(string: "http://procedure.kit.run")!`: PKNetwork does not make `URL`
//   `ExpressibleByStringLiteral` (we add no conformances to Foundation's types).
// - setUp points the fake session's `returnedURL` at a real temporary file, and tearDown deletes what is left:
//   PKNetwork's download procedure moves the session's file into a file of its own (FoundationNetworking never
//   deletes download files), so the file must exist. ProcedureKit's default was a made-up path.
// - Closures that the procedures and observers keep are `@Sendable` in Swift 6, so they capture locals (`download`,
//   `session`) instead of `self`, and record into a lock-protected `Flag` instead of mutating a captured `var`.
// - test__session_creates_download_task: the assertion `session.didReturnDownloadTask == download.task` is dropped:
//   `task` is internal in ProcedureKit (read through `@testable`) and PKNetwork has no public equivalent.
// - test__download_cancels_data_download_is_cancelled: the `DelayProcedure` that cancels the download is produced by
//   the download once it has executed (ProcedureKit enqueued both together), so that the cancel cannot come before
//   the task exists on a loaded machine; `wait(for: download)` also waits for what the download produced.
// - test__download_cancelled_does_not_call_completion_handler: the handler sets a `Flag` directly instead of through
//   `DispatchQueue.onMain` (a Linux test process does not service the main queue while the handler could run).
// - test__completion_handler_receives_data_and_response: the payload is not `session.returnedURL` but the file the
//   procedure moved it to (a documented difference, see Networking.md), so the test checks that the payload is
//   another file with the returned file's contents.
//
// Left out: nothing.

import Foundation
import PKNetwork
import PKTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class NetworkDownloadProcedureTests: ProcedureKitTestCase {

    var url: URL!
    var request: URLRequest!
    var session: TestableURLSessionTaskFactory!
    var download: NetworkDownloadProcedure!

    override func setUp() {
        super.setUp()
        url = URL(string: "http://procedure.kit.run")!
        request = URLRequest(url: url)
        session = TestableURLSessionTaskFactory()
        let returnedURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("NetworkDownloadProcedureTests-\(UUID().uuidString)")
        XCTAssertNoThrow(try Data("hello world".utf8).write(to: returnedURL))
        session.returnedURL = returnedURL
        download = NetworkDownloadProcedure(session: session, request: request)
    }

    override func tearDown() {
        let files = [session?.returnedURL, download?.output.success?.payload].compactMap { $0 }
        url = nil
        request = nil
        session = nil
        download = nil
        super.tearDown()
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    func test__session_receive_request() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertEqual(session.didReceiveDownloadRequest?.url, url)
    }

    func test__session_creates_download_task() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertNotNil(session.didReturnDownloadTask)
    }

    func test__download_resumes_download_task() {
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertTrue(session.didReturnDownloadTask?.didResume ?? false)
    }

    // MARK: Cancellation

    func test__download_cancels_data_download_is_cancelled() {
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
        XCTAssertTrue(session.didReturnDownloadTask?.didCancel ?? false)
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
        download = NetworkDownloadProcedure(session: session, request: request) { _ in
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
        download = NetworkDownloadProcedure(session: session) { _ in }
        wait(for: download)
        PKAssertProcedureFinishedWithError(download, ProcedureKitError.requirementNotSatisfied())
    }

    func test__no_data__finishes_with_error() {
        session.returnedURL = nil
        wait(for: download)
        PKAssertProcedureFinishedWithError(download, ProcedureKitError.unknown)
    }

    func test__session_error__finishes_with_error() {
        let error = NSError(domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet, userInfo: nil)
        session.returnedError = error
        wait(for: download)
        PKAssertProcedureFinishedWithError(download, error)
    }

    func test__completion_handler_receives_data_and_response() {
        let completionHandlerDidExecute = Flag()
        let session = self.session!
        let returnedURL = session.returnedURL
        let returnedContents = returnedURL.flatMap { try? Data(contentsOf: $0) }
        download = NetworkDownloadProcedure(session: session, request: request) { result in
            XCTAssertNotNil(result.value?.payload)
            XCTAssertNotEqual(result.value?.payload, returnedURL)
            XCTAssertEqual(result.value?.payload.flatMap { try? Data(contentsOf: $0) }, returnedContents)
            XCTAssertEqual(result.value?.response, session.returnedResponse)
            completionHandlerDidExecute.set()
        }
        wait(for: download)
        PKAssertProcedureFinished(download)
        XCTAssertTrue(completionHandlerDidExecute.isSet)
    }
}
