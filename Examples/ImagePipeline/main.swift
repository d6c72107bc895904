// A small image pipeline: download several (fake) images, resize each one once its download has finished,
// then publish a gallery that depends on every resize (fan-in). One download fails and one is cancelled, so the
// output shows how errors and cancellation travel through `errors` and `status`. Each download reports its
// progress; a progress bar follows the whole queue (redrawn in place on a terminal, plain lines otherwise).
import Foundation
import PKCore
import PKObservers
import Synchronization

struct Image: Sendable { let file: String, width: Int, height: Int }

enum PipelineError: Error { case notFound(String) }

/// "Downloads" an image: finishes later, from a timer, as a network callback would.
final class DownloadImage: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: the mutable state (`inFlight`, `result`) is behind its Mutexes; the rest is immutable.
    let file: String
    private let latency: DispatchTimeInterval
    private let inFlight = Mutex(false)
    private let result = Mutex<Pending<ProcedureResult<Image>>>(.pending)

    var output: Pending<ProcedureResult<Image>> {
        get { result.withLock { $0 } }
        set { result.withLock { $0 = newValue } }
    }

    private var halfway: DispatchTimeInterval {
        switch latency {
        case .seconds(let seconds): .milliseconds(seconds * 500)
        case .milliseconds(let milliseconds): .milliseconds(milliseconds / 2)
        default: latency
        }
    }

    init(file: String, latency: DispatchTimeInterval) {
        self.file = file
        self.latency = latency
        super.init()
        name = "download \(file)"
        // Respond to cancellation while the timer runs: finish now instead of when the timer fires. Cancelled
        // before execute(), nothing is in flight and the procedure finishes by itself without executing.
        addDidCancelBlockObserver { download, _ in
            if download.claimFinish() { download.finish() }
        }
    }

    /// `true` for exactly one caller (the timer or the DidCancel observer), so finish is called once.
    private func claimFinish() -> Bool {
        inFlight.withLock { inFlight in
            defer { inFlight = false }
            return inFlight
        }
    }

    override func execute() {
        inFlight.withLock { $0 = true }
        reportProgress(completed: 0, of: 100, message: "downloading \(file)")
        // Half-way through, as a network callback reporting bytes received would.
        DispatchQueue.global().asyncAfter(deadline: .now() + halfway) { [weak self] in
            self?.reportProgress(completed: 50, of: 100)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + latency) { [weak self] in
            guard let self, claimFinish() else { return }
            if file.hasPrefix("missing") {
                finish(withResult: .failure(PipelineError.notFound(file)))  // sets output, finishes with the error
            } else {
                finish(withResult: .success(Image(file: file, width: 4000, height: 3000)))
            }
        }
        // execute() returns now; the procedure stays executing until finish is called.
    }
}

/// Scales its download's image down. A failed or cancelled dependency does not stop a procedure from running,
/// so it looks at the download's outcome itself.
final class ResizeImage: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `result` is behind its Mutex; `download` and `maxSide` are immutable.
    let download: DownloadImage
    private let maxSide: Int
    private let result = Mutex<Pending<ProcedureResult<Image>>>(.pending)

    var output: Pending<ProcedureResult<Image>> {
        get { result.withLock { $0 } }
        set { result.withLock { $0 = newValue } }
    }

    init(_ download: DownloadImage, maxSide: Int) {
        self.download = download
        self.maxSide = maxSide
        super.init()
        name = "resize \(download.file)"
        addDependency(download)
    }

    override func execute() {
        switch download.output {
        case .ready(.success(let image)):
            let scale = Double(maxSide) / Double(max(image.width, image.height))
            let (width, height) = (Int(Double(image.width) * scale), Int(Double(image.height) * scale))
            finish(withResult: .success(Image(file: image.file, width: width, height: height)))
        case .ready(.failure):
            finish(with: ProcedureKitError.dependency(finishedWithErrors: download.errors))
        case .pending:  // the download was cancelled: cancel this one too, then finish (we are executing)
            cancel(with: ProcedureKitError.dependency(cancelledWithErrors: download.errors))
            finish()
        }
    }
}

/// Publishes every image that made it through; it depends on all the resizes (fan-in).
final class PublishGallery: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `resizes` is immutable, and each resize is itself thread-safe.
    private let resizes: [ResizeImage]

    init(_ resizes: [ResizeImage]) {
        self.resizes = resizes
        super.init()
        name = "publish"
        addDependencies(resizes)
    }

    override func execute() {
        let images = resizes.compactMap { try? $0.output.value?.get() }
        print("   publishing \(images.map { "\($0.file) (\($0.width)x\($0.height))" }.joined(separator: ", "))")
        finish()
    }
}

/// Prints each procedure's start and end. The closures receive the procedure, so they capture nothing.
func logLifecycle<P: Procedure>(of procedure: P) {
    procedure.addWillExecuteBlockObserver { procedure, _ in print("-> \(procedure.procedureName)") }
    procedure.addDidFinishBlockObserver { procedure, errors in
        let detail = errors.isEmpty ? "" : ", errors: \(errors)"
        print("<- \(procedure.procedureName): \(procedure.status)\(detail)")
    }
}

// MARK: - Synchronous: build the graph, add it, wait

let queue = ProcedureQueue(name: "images", maxConcurrentOperationCount: 2)  // at most two at a time
// The queue's progress: each download weighs its 100 units, each other procedure 1. On a terminal the bar is
// redrawn in place on standard error, so the lifecycle lines are left out there; into a file or a pipe, the bar
// writes a plain line per tenth, between the lifecycle lines.
let bar = TerminalProgressBar(monitoring: ProgressMonitor(queue), title: "images")
let onTerminal = isatty(STDERR_FILENO) == 1

let files = ["huge.png", "cat.png", "missing.png", "dog.png"]
let downloads = files.map { DownloadImage(file: $0, latency: .milliseconds($0 == "huge.png" ? 5_000 : 100)) }
let resizes = downloads.map { ResizeImage($0, maxSide: 400) }
let publish = PublishGallery(resizes)

if !onTerminal { for procedure: Procedure in downloads + resizes + [publish] { logLifecycle(of: procedure) } }
queue.add(procedures: downloads)
queue.add(procedures: resizes)
queue.add(procedure: publish)

// The huge download takes too long: cancel it. Its DidCancel observer stops the timer and finishes it.
DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { downloads[0].cancel() }

queue.waitUntilAllOperationsAreFinished()
bar.finish()  // a queue's progress never finishes by itself: end the bar's line
for download in downloads {
    print(
        "   \(download.file): status \(download.status), isCancelled \(download.isCancelled), "
            + "failed \(download.failed), error \(download.error.map { "\($0)" } ?? "none")")
}

// MARK: - Asynchronous: the same queue from async code

// `run` adds the procedure, waits for it, and returns its output (or throws its error). Name the result type:
// without it, Swift picks the plain `run(_: Procedure)` overload, which returns nothing.
let bird: Image = try await queue.run(DownloadImage(file: "bird.png", latency: .milliseconds(50)))
print("   async download: \(bird.file) \(bird.width)x\(bird.height)")

// Cancelling the Task that awaits `run` cancels the procedure; `run` then throws CancellationError.
let slow = Task { try await queue.run(DownloadImage(file: "panorama.png", latency: .seconds(10))) }
try await Task.sleep(for: .milliseconds(50))
slow.cancel()
do {
    _ = try await slow.value
} catch is CancellationError {
    print("   panorama.png: the awaiting Task was cancelled, so its download was cancelled too")
}
