extension Array where Element == Condition {
    /// The conditions without repeated instances (compared by identity), in the order of first appearance.
    func withoutDuplicateInstances() -> [Condition] {
        var seen = Set<ObjectIdentifier>()
        return filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
