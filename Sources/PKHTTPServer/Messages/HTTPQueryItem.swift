/// One `name=value` item of a request's query, decoded.
public struct HTTPQueryItem: Sendable, Hashable {

    /// The item's name, decoded.
    public var name: String

    /// The item's value, decoded; empty for `?flag` and `?flag=`.
    public var value: String

    /// Creates an item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
