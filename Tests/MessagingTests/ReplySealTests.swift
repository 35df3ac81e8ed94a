import Messaging
import NATS
import Testing

/// Sealed replies without a server: only the caller that asked opens its reply, and only for that call.
@Suite("Sealed replies")
struct ReplySealTests {
    @Test("a reply sealed for a call opens for that call only, and for no other process")
    func roundTrip() throws {
        let caller = try ReplySeal(), responder = try ReplySeal(), other = try ReplySeal()
        let headers = caller.requestHeaders()
        let key = try #require(headers[ReplySeal.requestHeader]), bind = try #require(headers[ReplySeal.bindHeader])
        let plaintext = Array(#"{"v":1,"data":{"refreshToken":"secret"}}"#.utf8)
        let sealed = try responder.seal(plaintext, for: key, bind: bind)
        #expect(!String(decoding: sealed.payload, as: UTF8.self).contains("secret"))
        let reply = NATSMessage(subject: "_INBOX_gateway.x.1", payload: sealed.payload, headers: sealed.headers)
        #expect(try caller.open(reply, headers: headers) == plaintext)
        // Another process with the same inbox, another call's bind, or an unsealed reply: nothing opens.
        #expect(throws: (any Error).self) { try other.open(reply, headers: headers) }
        #expect(throws: (any Error).self) { try caller.open(reply, headers: caller.requestHeaders()) }
        #expect(throws: (any Error).self) { try caller.open(NATSMessage(subject: reply.subject, payload: plaintext), headers: headers) }
        // A reply sealed by someone else to the caller's public key for another bind does not open either.
        let forged = try other.seal(plaintext, for: key, bind: "another-call")
        #expect(throws: (any Error).self) {
            try caller.open(NATSMessage(subject: reply.subject, payload: forged.payload, headers: forged.headers), headers: headers)
        }
    }

    @Test("only 32 bytes in base64url (43 characters) are a public key")
    func publicKeys() throws {
        #expect(ReplySeal.isPublicKey(try ReplySeal().publicKeyText))
        #expect(!ReplySeal.isPublicKey(""))
        #expect(!ReplySeal.isPublicKey(String(repeating: "A", count: 42)))
        #expect(!ReplySeal.isPublicKey(String(repeating: "A", count: 44)))
        #expect(!ReplySeal.isPublicKey(String(repeating: "*", count: 43)))
    }
}
