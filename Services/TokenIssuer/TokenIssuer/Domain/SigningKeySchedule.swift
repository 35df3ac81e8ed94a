import Foundation

/// The rules of the key schedule: which key signs and which keys are published at a moment. Pure: the
/// keys and the time come in, so every replica that sees the same table decides the same.
enum SigningKeySchedule {
    /// The key of `keys` whose time to sign has come at `now`: the newest that activated and has not retired.
    static func active(in keys: [SigningKey], at now: Date) -> SigningKey? {
        keys.filter { $0.activatesAt <= now && ($0.retiredAt ?? .distantFuture) > now }.max { $0.activatesAt < $1.activatesAt }
    }

    /// The key this replica signs with at `now`: the active key when it holds its private key; otherwise,
    /// rather than fail every login, the newest key it holds that is still published (a key file removed
    /// before its successor activated, or the next key's file not yet arrived here). A key no longer
    /// published never signs again: no one could check its tokens.
    static func signing(in keys: [SigningKey], at now: Date, accessTokenTTL: Duration) -> SigningKey? {
        let held = published(keys, at: now, accessTokenTTL: accessTokenTTL).filter { $0.signer != nil }
        return active(in: held, at: now) ?? held.max { $0.activatesAt < $1.activatesAt }
    }

    /// The keys of `keys` to publish at `now`: a retired key stays until its last token expired.
    static func published(_ keys: [SigningKey], at now: Date, accessTokenTTL: Duration) -> [SigningKey] {
        let cutoff = now.addingTimeInterval(-accessTokenTTL.timeInterval)
        return keys.filter { ($0.retiredAt ?? .distantFuture) > cutoff }
    }
}
