/// A parsed key set ready for verification: kid → (PublicKey, allowed alg). Unsupported/invalid keys are skipped (not fatal).
///
/// A `kid` that appears on more than one usable key is ambiguous, so every key with that `kid` is dropped.
public struct VerificationKeySet: Sendable {
    private let byKID: [String: VerificationKey]
    private let all: [VerificationKey]
    /// Why each skipped key was skipped (kid or position, and the error), for logging by the caller.
    public let skipped: [(key: String, error: JOSEError)]

    /// Parses every JWK in `set`, keeping the usable ones.
    public init(_ set: JWKSet) {
        var usable: [VerificationKey] = []
        var skipped: [(key: String, error: JOSEError)] = []
        for (index, jwk) in set.keys.enumerated() {
            do {
                usable.append(try VerificationKey(jwk))
            } catch {
                skipped.append((jwk.kid ?? "#\(index)", error))
            }
        }
        self.init(keys: usable, skipped: skipped)
    }

    /// A set of already parsed keys (for a service's own signing keys).
    public init(keys: [VerificationKey]) {
        self.init(keys: keys, skipped: [])
    }

    private init(keys: [VerificationKey], skipped: [(key: String, error: JOSEError)]) {
        var counts: [String: Int] = [:]
        for key in keys { if let kid = key.kid { counts[kid, default: 0] += 1 } }
        var byKID: [String: VerificationKey] = [:]
        var kept: [VerificationKey] = []
        var skipped = skipped
        for key in keys {
            if let kid = key.kid {
                guard counts[kid] == 1 else {
                    skipped.append((kid, JOSEError.unsupportedKey.with("duplicate kid")))
                    continue
                }
                byKID[kid] = key
            }
            kept.append(key)
        }
        self.byKID = byKID
        self.all = kept
        self.skipped = skipped
    }

    /// The key for `kid`; with a nil `kid`, the set's only key if it has exactly one.
    public func key(for kid: String?) -> VerificationKey? {
        guard let kid else { return all.count == 1 ? all[0] : nil }
        return byKID[kid]
    }

    /// The key to check a token with: by `kid`, or with no `kid`, the only key whose algorithm is `algorithm`.
    func key(for kid: String?, algorithm: JWSAlgorithm) -> VerificationKey? {
        if let kid { return byKID[kid] }
        var found: VerificationKey?
        for key in all where key.algorithm == algorithm {
            guard found == nil else { return nil }
            found = key
        }
        return found
    }

    /// The key IDs of the usable keys.
    public var kids: [String] { all.compactMap(\.kid) }

    /// How many usable keys the set holds.
    public var count: Int { all.count }

    /// Whether the set holds no usable key.
    public var isEmpty: Bool { all.isEmpty }
}
