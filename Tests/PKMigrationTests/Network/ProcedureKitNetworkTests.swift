// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/ProcedureKitNetworkTests.swift (ProcedureKit 5.x): the
// test target's conformances of TestingProcedureKit's fakes to ProcedureKitNetwork's protocols, and the smoke test.
//
// Changes besides imports:
// - `@Sendable` added to the three `completionHandler` parameters: PKNetwork's `NetworkSession` requirements take
//   `@Sendable` handlers, and in the Swift 6 language mode a witness must match them.
// - `Error` is spelled `any Error` in those parameters: the package enables the `ExistentialAny` upcoming feature.
// - `NetworkDataTask` and friends are spelled `any NetworkDataTask` in the results, for the same reason.
// - `TestSuiteRuns` is `final`, as every suite of this target.

import Foundation
import PKNetwork
import PKTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TestableURLSessionTask: URLSessionTaskProtocol, NetworkDataTask, NetworkDownloadTask, NetworkUploadTask {}
extension TestableURLSessionTaskFactory: NetworkSession {
    /// The factory's data task, as a `NetworkDataTask`.
    public func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        let task: TestableURLSessionTask = dataTask(with: request, completionHandler: completionHandler)
        return task
    }

    /// The factory's download task, as a `NetworkDownloadTask`.
    public func downloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask {
        let task: TestableURLSessionTask = downloadTask(with: request, completionHandler: completionHandler)
        return task
    }

    /// The factory's upload task, as a `NetworkUploadTask`.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        let task: TestableURLSessionTask = uploadTask(
            with: request, from: bodyData, completionHandler: completionHandler)
        return task
    }
}

final class TestSuiteRuns: XCTestCase {

    func test__suite_runs() {
        XCTAssertTrue(true)
    }
}
