import Foundation
import PKCore
import PKTesting
import Testing

// The first example of the article "Groups" (PKCore.docc/Groups.md), as written there, so that it compiles and
// runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test; the second is
// in GroupFailureReportTests). `DownloadImage` and `ResizeImage` stand for the reader's own procedures.

private struct Image: Sendable {}

private final class DownloadImage: ResultProcedure<Image>, @unchecked Sendable {
    init(url: URL) { super.init { Image() } }
}

private final class ResizeImage: TransformProcedure<Image, Image>, @unchecked Sendable {
    init() { super.init { $0 } }
}

struct GroupsGuideTests {

    @Test func aGroupOfADownloadAndAResize() async {
        let url = URL(fileURLWithPath: "/tmp/photo.jpg")
        let queue = ProcedureQueue()
        let download = DownloadImage(url: url)
        let resize = ResizeImage()
        resize.injectResult(from: download)

        let group = GroupProcedure(operations: download, resize)
        group.addDidFinishBlockObserver { group, errors in
            print("group finished with \(errors.count) error(s)")
        }
        queue.add(procedure: group)
        // End of the article's example.
        await group.waitUntilFinished()
        PKExpectProcedureFinished(group)
        #expect(resize.output.success != nil)
    }
}
