import Crypto
import Foundation
import JOSE
import NATS
import Synchronization

/// Replies only the asker can read. A caller that sends the ``requestHeader`` (its X25519 public key) gets
/// its reply sealed to it: AES-256-GCM under the key that the responder's key pair and the caller's agree
/// on, bound to the request's ``bindHeader`` (a random value of each call, handed on by a chain's hops with
/// the key), with the responder's public key in the ``replyHeader``. Whoever else
/// reads the caller's inbox (a stolen seed of the same identity, used elsewhere) sees only sealed bytes,
/// for the caller's private key never leaves its process.
///
/// Each process makes one key pair at start; the keys agreed with each peer are remembered (at most
/// ``capacity``), so a reply costs one AES-GCM, not a key agreement.
public final class ReplySeal: Sendable {
    /// The request header with the caller's public key (base64url).
    public static let requestHeader = "X-Reply-Key"
    /// The request header with a random value of the call, which its sealed reply is bound to.
    public static let bindHeader = "X-Reply-Bind"
    /// The reply header with the responder's public key (base64url): the reply is sealed.
    public static let replyHeader = "X-Reply-Sealed"
    /// The most peers whose agreed keys are remembered.
    static let capacity = 1_024
    private static let info = Array("social-login sealed reply v1".utf8)

    private let pair: X25519KeyPair
    /// This process's public key as the headers carry it.
    public let publicKeyText: String
    private let agreed = Mutex<[String: [UInt8]]>([:])

    /// A new key pair.
    public init() throws(CryptoError) {
        pair = try X25519KeyPair.generate()
        publicKeyText = Base64URL.encode(pair.publicKey)
    }

    /// The one a responder process seals with: made at first use. Key generation fails only when OpenSSL
    /// cannot allocate, which a service cannot recover from.
    static let responder: ReplySeal = {
        do { return try ReplySeal() } catch { fatalError("cannot make the reply-sealing key: \(error)") }
    }()

    /// Whether `text` is a public key as the ``requestHeader`` carries it: 32 bytes in base64url.
    public static func isPublicKey(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(text)?.count == X25519KeyPair.publicKeyLength
    }

    /// The headers that ask for a call's reply to be sealed, with a fresh value to bind it to.
    public func requestHeaders() -> [String: String] {
        [Self.requestHeader: publicKeyText, Self.bindHeader: Base64URL.encode(SecureRandom.bytes(16))]
    }

    /// Seals `payload`, the reply to a request that carried `peerText` and `bind`; returns the sealed payload
    /// and the header to send with it.
    public func seal(_ payload: [UInt8], for peerText: String, bind: String) throws(CryptoError) -> (payload: [UInt8], headers: [String: String]) {
        let key = try key(peer: peerText, requester: peerText, responder: publicKeyText)
        return (try AESGCM.seal(payload, key: key, associatedData: Array(bind.utf8)), [Self.replyHeader: publicKeyText])
    }

    /// The plaintext of the reply to a call this process made with `headers` (``requestHeaders()``); throws
    /// when the reply is not sealed, or does not open (an answer that is not the responder's to that call).
    public func open(_ message: NATSMessage, headers: [String: String]) throws(CryptoError) -> [UInt8] {
        guard let responderText = message.headers[Self.replyHeader], let bind = headers[Self.bindHeader] else {
            throw CryptoError.authenticationFailed
        }
        let key = try key(peer: responderText, requester: publicKeyText, responder: responderText)
        return try AESGCM.open(message.payload, key: key, associatedData: Array(bind.utf8))
    }

    /// The key agreed with the peer whose public key is `peer`, remembered; the salt names both keys, the
    /// requester's first.
    private func key(peer: String, requester: String, responder: String) throws(CryptoError) -> [UInt8] {
        if let known = agreed.withLock({ $0[peer] }) { return known }
        guard peer.utf8.count <= 64, let peerKey = Base64URL.decode(peer), let requesterKey = Base64URL.decode(requester),
              let responderKey = Base64URL.decode(responder) else {
            throw CryptoError.invalidKey
        }
        let key = try pair.agreedKey(with: peerKey, salt: requesterKey + responderKey, info: Self.info)
        agreed.withLock { agreed in
            // Full: one other peer is forgotten (it costs one more agreement if it comes back), not all.
            if agreed.count >= Self.capacity { agreed.remove(at: agreed.startIndex) }
            agreed[peer] = key
        }
        return key
    }
}
