/// The webhook-relay's consumers have fixed names (`webhook-01` to `webhook-32`, ``Events/Durables/webhookSlots``) and
/// are made by the member-service when it starts: the relay's NATS identity may only read them, so it can never make
/// JetStream deliver events onto someone else's subject. Each endpoint claims one, and the claim is the value of
/// `slot.<consumer>` in the relay's key-value bucket (``Events/webhookBucket``), written by compare-and-set, where every
/// replica, and the member-service, reads it:
///
/// - `webhook claimed <endpoint> <since>`: the endpoint's, delivering the events stored from `since` (Unix seconds) on;
///   with ` disabled <fingerprint>` after, it answered 410 while its entry in the file had that fingerprint;
/// - `webhook released <endpoint> <since> <at>`: the endpoint left the file at `at` (no replica read it any more); it
///   takes the slot back, and its place (and a 410's mark), if it comes back before another endpoint needs the slot;
/// - no value: free.
public enum WebhookSlot: Sendable, Equatable {
    case free
    case claimed(endpoint: String, since: Int64, disabled: String? = nil)
    case released(endpoint: String, since: Int64, at: Int64, disabled: String? = nil)

    /// Reads a slot's value; anything else is taken as free.
    public init(description: String) {
        let words = description.split(separator: " ").map(String.init)
        switch words.count {
        case 4 where words[0] == "webhook" && words[1] == "claimed":
            guard let since = Int64(words[3]) else { self = .free; return }
            self = .claimed(endpoint: words[2], since: since)
        case 6 where words[0] == "webhook" && words[1] == "claimed" && words[4] == "disabled":
            guard let since = Int64(words[3]) else { self = .free; return }
            self = .claimed(endpoint: words[2], since: since, disabled: words[5])
        case 5 where words[0] == "webhook" && words[1] == "released":
            guard let since = Int64(words[3]), let at = Int64(words[4]) else { self = .free; return }
            self = .released(endpoint: words[2], since: since, at: at)
        case 7 where words[0] == "webhook" && words[1] == "released" && words[5] == "disabled":
            guard let since = Int64(words[3]), let at = Int64(words[4]) else { self = .free; return }
            self = .released(endpoint: words[2], since: since, at: at, disabled: words[6])
        default:
            self = .free
        }
    }

    /// The description that writes it.
    public var description: String {
        switch self {
        case .free: ""
        case .claimed(let endpoint, let since, let disabled): "webhook claimed \(endpoint) \(since)" + (disabled.map { " disabled \($0)" } ?? "")
        case .released(let endpoint, let since, let at, let disabled):
            "webhook released \(endpoint) \(since) \(at)" + (disabled.map { " disabled \($0)" } ?? "")
        }
    }

    /// How many endpoints the relay serves at most.
    public static var capacity: Int { Events.Durables.webhookSlots.count }

    /// The bucket key holding `slot`'s claim.
    public static func claimKey(_ slot: String) -> String { "slot.\(slot)" }

    /// The bucket key holding the lease on `slot` (the replica that reads it, and until when).
    public static func leaseKey(_ slot: String) -> String { "lease.\(slot)" }

    /// Every key of the relay's bucket: a claim and a lease per slot, and nothing else.
    public static var keys: [String] { Events.Durables.webhookSlots.flatMap { [claimKey($0), leaseKey($0)] } }

    /// The largest value the bucket takes: a claim names an endpoint (at most 48 characters), two times and a
    /// fingerprint, in about 130 bytes.
    public static let maxValueSize = 512

    /// The slot the endpoint `name` is to use, given what each slot holds (in order), and the claim to write there
    /// (nil when it holds it already); nil when every slot is claimed. Its own claim first, then its released slot
    /// (taken back with its place), then the first free slot, then the slot released longest ago (from `now` on).
    public static func choose(for name: String, among slots: [(name: String, slot: WebhookSlot)],
                              now: Int64) -> (slot: String, claim: WebhookSlot, write: Bool)? {
        if let own = slots.first(where: { if case .claimed(name, _, _) = $0.slot { true } else { false } }) {
            return (own.name, own.slot, false)
        }
        for (slot, state) in slots {
            if case .released(name, let since, _, let disabled) = state {
                return (slot, .claimed(endpoint: name, since: since, disabled: disabled), true)
            }
        }
        if let free = slots.first(where: { $0.slot == .free }) {
            return (free.name, .claimed(endpoint: name, since: now), true)
        }
        let released = slots.compactMap { slot -> (String, Int64)? in
            if case .released(_, _, let at, _) = slot.slot { (slot.name, at) } else { nil }
        }
        guard let oldest = released.min(by: { $0.1 < $1.1 }) else { return nil }
        return (oldest.0, .claimed(endpoint: name, since: now), true)
    }
}
