/// Something that shows whether network work is in flight: a CLI spinner, a status endpoint, a metrics gauge.
///
/// ProcedureKit's name and shape. A ``NetworkActivityController`` sets ``isNetworkActivityIndicatorVisible`` only
/// from its own serial queue (or the one it was given), only when the value changes, and never from
/// `DispatchQueue.main`, which a Linux program need not service. Conforming types are `Sendable` because the
/// controller holds them across threads; since every write comes from one serial queue, a class whose property is
/// read only there (or behind a lock) satisfies that.
public protocol NetworkActivityIndicatorProtocol: AnyObject, Sendable {
    /// Whether network activity is shown.
    var isNetworkActivityIndicatorVisible: Bool { get set }
}
