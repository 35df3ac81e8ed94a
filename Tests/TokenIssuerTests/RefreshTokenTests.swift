import Crypto
import Foundation
import JOSE
import Runtime
import Testing
@testable import TokenIssuer

/// Refresh tokens by generation (`<session>.<generation>.<tag>.<MAC>`) and their keys, without servers: what reads as a
/// token, what a key rotation keeps reading, how a login's session is named, and the key files.
@Suite("Refresh tokens by generation")
struct RefreshTokenTests {
    private static let keyA = Array(repeating: UInt8(0xA1), count: 32)
    private static let keyB = Array(repeating: UInt8(0xB2), count: 48)
    private static let keys = RefreshTokenKeys([keyA])!

    private static func current(_ presented: PresentedRefreshToken?) -> RefreshToken? {
        if case .current(let token) = presented { token } else { nil }
    }

    private static let secret = Array(repeating: UInt8(0x5C), count: RefreshTokenKeys.secretBytes)

    private static func token(_ session: UUID, _ generation: Int64, keys: RefreshTokenKeys = keys,
                              secret: [UInt8] = secret) -> RefreshToken {
        keys.token(sessionId: session, tag: RefreshTokenKeys.tag(secret: secret, generation: generation), generation: generation)
    }

    @Test("a token reads back as its session, generation and tag (never the secret); the successor differs in all but the session")
    func roundTrip() throws {
        let session = UUID()
        let token = Self.token(session, 41)
        let tag = RefreshTokenKeys.tag(secret: Self.secret, generation: 41)
        #expect(token.value.hasPrefix("\(session.uuidString.lowercased()).41.\(Base64URL.encode(tag))."))
        #expect(tag != RefreshTokenKeys.tag(secret: Self.secret, generation: 42) && !token.value.contains(Base64URL.encode(Self.secret)))
        #expect(token.value.utf8.count == 36 + 1 + 2 + 1 + 22 + 1 + 43)
        #expect(Self.current(Self.keys.read(token.value)) == token)
        let next = Self.token(session, 42)
        #expect(next.value != token.value && Self.token(session, 42) == next, "not deterministic")
    }

    @Test("a changed MAC, generation, tag or session, another key, or a token not quite in the form reads as no token", arguments: [
        "wrong MAC", "generation changed", "session changed", "tag changed", "another key", "uppercase session", "leading zero",
        "plus sign", "negative", "too long a generation", "extra part", "no tag", "MAC padded", "tag padded", "empty", "dots only",
        "a megabyte of dots",
    ])
    func refusals(_ how: String) throws {
        let session = UUID()
        let token = Self.token(session, 7).value
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 4)
        let (id, tag, mac) = (parts[0], parts[2], parts[3])
        let forged: String
        switch how {
        case "wrong MAC": forged = [id, "7", tag, String(mac.reversed())].joined(separator: ".")
        case "generation changed": forged = [id, "8", tag, mac].joined(separator: ".")
        case "session changed": forged = [UUID().uuidString.lowercased(), "7", tag, mac].joined(separator: ".")
        case "tag changed": forged = [id, "7", Base64URL.encode(SecureRandom.bytes(16)), mac].joined(separator: ".")
        case "another key": forged = Self.token(session, 7, keys: RefreshTokenKeys([Self.keyB])!).value
        case "uppercase session": forged = [id.uppercased(), "7", tag, mac].joined(separator: ".")
        case "leading zero": forged = [id, "07", tag, mac].joined(separator: ".")
        case "plus sign": forged = [id, "+7", tag, mac].joined(separator: ".")
        case "negative": forged = Self.token(session, -1).value
        case "too long a generation": forged = [id, "00000000000000000007", tag, mac].joined(separator: ".")
        case "extra part": forged = token + ".x"
        case "no tag": forged = [id, "7", mac].joined(separator: ".")
        case "MAC padded": forged = token + "="
        case "tag padded": forged = [id, "7", tag + "==", mac].joined(separator: ".")
        case "empty": forged = ""
        case "a megabyte of dots": forged = String(repeating: ".", count: 1 << 20)
        default: forged = "..."
        }
        #expect(Self.keys.read(forged) == nil)
    }

    @Test("a token of the releases before (43 characters of base64url) reads as one, for its hash to be looked up")
    func legacy() {
        let old = LegacyRefreshToken.random()
        guard case .legacy(let read) = Self.keys.read(old.value) else { Issue.record("not read as legacy"); return }
        #expect(read.hash == old.hash)
        #expect(Self.keys.read("not-a-token") == nil)
    }

    @Test("a key rotation: tokens of the old key still read beside the new one, which signs; with the old key gone they do not")
    func rotation() throws {
        let session = UUID()
        let old = Self.token(session, 3)
        let both = RefreshTokenKeys([Self.keyA, Self.keyB])!
        #expect(Self.current(both.read(old.value)) == old)
        let successor = Self.token(session, 4, keys: both)
        #expect(successor.value != Self.token(session, 4).value, "the new key does not sign")
        #expect(Self.current(RefreshTokenKeys([Self.keyB])!.read(successor.value)) == successor)
        #expect(RefreshTokenKeys([Self.keyB])!.read(old.value) == nil)
    }

    @Test("a login's attempts name one session (a version 8 UUID), whatever the key; another login, member or device names others")
    func loginSession() {
        let one = RefreshTokenKeys.session(ofLogin: "attempt-1", memberId: 7, deviceId: "phone")
        #expect(one == RefreshTokenKeys.session(ofLogin: "attempt-1", memberId: 7, deviceId: "phone"))
        #expect(one.uuidString.lowercased().dropFirst(14).first == "8")
        let others = [RefreshTokenKeys.session(ofLogin: "attempt-2", memberId: 7, deviceId: "phone"),
                      RefreshTokenKeys.session(ofLogin: "attempt-1", memberId: 8, deviceId: "phone"),
                      RefreshTokenKeys.session(ofLogin: "attempt-1", memberId: 7, deviceId: "tablet")] + [one]
        #expect(Set(others).count == 4)
    }

    @Test("no key, or a key shorter than 32 bytes, makes no key set")
    func shortKeys() {
        #expect(RefreshTokenKeys([]) == nil)
        #expect(RefreshTokenKeys([Array(repeating: 1, count: 31)]) == nil)
        #expect(RefreshTokenKeys([Self.keyA, Array(repeating: 1, count: 8)]) == nil)
    }

    @Test("key files: base64 (or base64url) of 32 bytes or more, line end aside, directories of *.key in name order, the last signing")
    func keyFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-keys-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(96)
        try Data((Data(a).base64EncodedString() + "\n").utf8).write(to: directory.appendingPathComponent("2026-01.key"))
        // Wrapped over lines, as `openssl rand -base64 64` writes it.
        try Data((Data(b).base64EncodedString(options: .lineLength64Characters) + "\n").utf8).write(to: directory.appendingPathComponent("2026-02.key"))
        try Data("ignored".utf8).write(to: directory.appendingPathComponent("README"))
        let keys = try RefreshTokenKeys.readKeyFiles([directory.path])
        #expect(keys == RefreshTokenKeys([a, b]))
        let session = UUID()
        #expect(Self.token(session, 1, keys: keys) == Self.token(session, 1, keys: RefreshTokenKeys([b])!))
        #expect(throws: ConfigurationError.self) { try RefreshTokenKeys.readKeyFiles([directory.appendingPathComponent("none").path]) }
    }

    @Test("a key file that is no base64 of 32 random bytes is refused, naming the file and none of its contents", arguments: [
        "CHANGE-ME-to-openssl-rand-base64-48", "correct horse battery staple and then some more words", "c2hvcnQ=",
        Data(SecureRandom.bytes(31)).base64EncodedString(), "CHANGE-ME" + Base64URL.encode(SecureRandom.bytes(48)),
    ])
    func keyFileRefused(_ contents: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-key-\(UUID().uuidString.prefix(8)).key")
        try Data((contents + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try RefreshTokenKeys.readKeyFiles([file.path])
            Issue.record("accepted: \(contents)")
        } catch {
            #expect(error.variable == "REFRESH_TOKEN_KEY_FILE" && error.problem.contains(file.lastPathComponent))
            #expect(!error.problem.contains(contents))
        }
    }

    @Test("a replica's keyring takes a key added to its files, and a new last one, at the next reload; a bad file keeps the keys, a key gone checks tokens until a restart")
    func keyringReload() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-keyring-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Data(SecureRandom.bytes(32)).base64EncodedString().utf8).write(to: directory.appendingPathComponent("b-current.key"))
        let keyring = RefreshTokenKeyring(files: [directory.path], keys: try RefreshTokenKeys.readKeyFiles([directory.path]))
        #expect(try keyring.reload() == nil)
        let session = UUID()
        let old = Self.token(session, 1, keys: keyring.current)
        // Step 1 of a rotation: the next key sorts first, so it checks tokens and makes none yet.
        try Data(Data(SecureRandom.bytes(32)).base64EncodedString().utf8).write(to: directory.appendingPathComponent("a-next.key"))
        #expect(try keyring.reload()?.held == 2)
        #expect(Self.token(session, 1, keys: keyring.current) == old)
        let short = directory.appendingPathComponent("c-bad.key")
        try Data("short".utf8).write(to: short)
        #expect(throws: ConfigurationError.self) { _ = try keyring.reload() }
        #expect(keyring.current.count == 2 && Self.token(session, 1, keys: keyring.current) == old)
        try FileManager.default.removeItem(at: short)
        // Step 2: the next key made last (renamed to sort last) is taken; the old key checks tokens still.
        try FileManager.default.moveItem(at: directory.appendingPathComponent("a-next.key"), to: directory.appendingPathComponent("c-next.key"))
        #expect(try keyring.reload()?.held == 2)
        let new = Self.token(session, 1, keys: keyring.current)
        #expect(new != old && keyring.current.read(old.value) != nil)
        // A key deleted (by mistake, or to drop it) checks tokens until a restart, while a new last key, added in the same
        // change (a leaked key replaced at once), makes them.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("b-current.key"))
        let replacement = SecureRandom.bytes(32)
        try Data(Data(replacement).base64EncodedString().utf8).write(to: directory.appendingPathComponent("d-replacement.key"))
        let changed = try keyring.reload()
        #expect(changed?.held == 3 && changed?.kept == 1)
        #expect(keyring.current.read(old.value) != nil && keyring.current.read(new.value) != nil)
        #expect(Self.token(session, 1, keys: keyring.current) == Self.token(session, 1, keys: RefreshTokenKeys([replacement])!))
        #expect(try keyring.reload() == nil)
        // A keyring without files (the database's key) never changes.
        #expect(try RefreshTokenKeyring(files: nil, keys: Self.keys).reload() == nil)
    }
}
