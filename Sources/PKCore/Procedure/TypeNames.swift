/// The names of types, described once per type.
///
/// A procedure with no name of its own is named after its type, and `String(describing:)` of a metatype costs
/// several thousand instructions (it demangles the type's name) each time. The trace recorder reads the name of
/// every procedure it records, so that was most of its cost per procedure (PERF(W13)). One entry per type the
/// program names, never evicted: the set of types is fixed by the program (each generic specialisation is one).
///
/// Thread-safe: the table is guarded by its mutex; names are described outside it.
package enum TypeNames {
    private static let table = PKMutex<[ObjectIdentifier: String]>([:])

    /// `String(describing: type)`, described the first time only.
    package static func name(of type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = table.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        table.withLock { $0[key] = name }
        return name
    }
}
