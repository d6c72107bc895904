import Foundation

/// The process's resident memory in bytes (Linux `/proc/self/statm`), or `nil` where unavailable.
///
/// Glibc's `mallinfo` is not visible to Swift here, so memory per object is measured as the growth of the resident
/// set while a large number of objects is held: allocator slack is included, which makes the figure conservative.
func heapBytesInUse() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let residentPages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    return residentPages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
