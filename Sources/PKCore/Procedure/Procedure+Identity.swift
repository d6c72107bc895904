extension Procedure {

    /// A value identifying one procedure: its object identity and its name when the value was taken.
    ///
    /// Equal and hashed by object identity alone, so a procedure renamed later still has an equal identity.
    public struct Identity: Hashable, Sendable, CustomStringConvertible {
        /// The procedure's object identity.
        public let identity: ObjectIdentifier
        /// The procedure's name when the identity was taken.
        public let name: String?

        /// Equal when they identify the same procedure.
        public static func == (lhs: Identity, rhs: Identity) -> Bool { lhs.identity == rhs.identity }

        /// Hashes the object identity.
        public func hash(into hasher: inout Hasher) { hasher.combine(identity) }

        /// `"<name> #<identity>"`, or `"Unnamed Procedure #<identity>"` without a name.
        public var description: String {
            "\(name ?? "Unnamed Procedure") #\(String(UInt(bitPattern: identity.hashValue), radix: 16))"
        }
    }

    /// The procedure's ``Identity``.
    public final var identity: Identity {
        Identity(identity: ObjectIdentifier(self), name: name)
    }
}
