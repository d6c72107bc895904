// A small pipeline recorded with PKObservers' TraceRecorder, written as a Trace Event Format file you can open in
// Perfetto (https://ui.perfetto.dev, "Open trace file") or in Chrome at chrome://tracing ("Load").
//
//   swift run TraceDemo [path]        # writes ./trace.json (and ./trace-threads.json) unless a path is given
//
// The pipeline: load a configuration; a group downloads three files at once; decode waits for the group and
// produces an index step; validate fails; publish, which needed validate to succeed, is cancelled; a long
// prefetch is cancelled once decode no longer needs it. The trace shows one lane per procedure, arrows from each
// dependency to its dependent and from the moments the group added its children, and the failed and cancelled
// statuses. The second file lays the same trace out with a lane per thread, to show what ran in parallel.
import Foundation
import PKCore
import PKObservers

/// Work that takes `duration` seconds, in short naps so that cancelling it ends it early.
class Step: Procedure, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable.
    let duration: TimeInterval
    let failure: (any Error)?

    init(_ name: String, duration: TimeInterval, failure: (any Error)? = nil) {
        self.duration = duration
        self.failure = failure
        super.init()
        self.name = name
    }

    override func execute() {
        let deadline = Date().addingTimeInterval(duration)
        while Date() < deadline, !isCancelled {
            Thread.sleep(forTimeInterval: 0.002)
        }
        finish(with: failure)
    }
}

/// A download: its own type, so it gets its own category (colour) in the trace.
final class Download: Step, @unchecked Sendable {}

/// Decoding, which produces an index step as it finishes.
final class Decode: Step, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own.
    override func execute() {
        Thread.sleep(forTimeInterval: duration)
        do {
            try produce(operation: Step("Index", duration: 0.015))
        } catch {
            log.warning("could not produce the index step: \(error)")
        }
        finish()
    }
}

struct ValidationError: Error, CustomStringConvertible {
    let description: String
}

let path = CommandLine.arguments.dropFirst().first ?? "trace.json"
let url = URL(fileURLWithPath: path)
let threadsURL = URL(fileURLWithPath: url.deletingPathExtension().path + "-threads.json")

Log.severity = .warning
let recorder = TraceRecorder(name: "TraceDemo")
let queue = ProcedureQueue(name: "pipeline")
queue.addObserver(recorder)  // held weakly: `recorder` stays alive until the end of this file

let configuration = Step("Load configuration", duration: 0.02)
let downloads = GroupProcedure(operations: [
    Download("Download a.bin", duration: 0.04),
    Download("Download b.bin", duration: 0.06),
    Download("Download c.bin", duration: 0.03),
])
downloads.name = "Download files"
downloads.addDependency(configuration)
let decode = Decode("Decode", duration: 0.03)
decode.addDependency(downloads)
let validate = Step("Validate", duration: 0.01, failure: ValidationError(description: "checksum mismatch in b.bin"))
validate.addDependency(decode)
let publish = Step("Publish", duration: 0.02)
publish.addDependency(validate)
// Publish needs a valid result: cancel it when validation fails (PKConditions' NoFailedDependenciesCondition does
// this declaratively).
validate.addDidFinishBlockObserver { _, errors in
    if !errors.isEmpty { publish.cancel(with: ValidationError(description: "validation failed")) }
}
let prefetch = Step("Prefetch thumbnails", duration: 1)
prefetch.addDependency(configuration)
decode.addDidFinishBlockObserver { _, _ in prefetch.cancel() }

queue.add(procedures: [configuration, downloads, decode, validate, publish, prefetch])
queue.waitUntilAllOperationsAreFinished()

do {
    try recorder.writeTrace(to: url)
    try recorder.writeTrace(to: threadsURL, lanes: .perThread)
} catch {
    print("Could not write the trace: \(error)")
    exit(1)
}

for procedure in [configuration, downloads, decode, validate, publish, prefetch] {
    print("\(procedure.procedureName): \(procedure.status)")
}
print(
    """

    Wrote \(url.path) (a lane per procedure) and \(threadsURL.path) (a lane per thread).
    Open one in Perfetto: https://ui.perfetto.dev → "Open trace file" (nothing is uploaded; it runs in the browser),
    or in Chrome: chrome://tracing → "Load". Click a slice to see its status, errors, queue and thread, and its
    arrows: from each dependency to its dependent, and from the moments the group added its children.
    """)
