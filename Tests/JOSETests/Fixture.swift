import Crypto
import Foundation
import JOSE
import Testing
import TestVectors

/// Small helpers shared by the suites.
enum Fixture {
    static func hex(_ text: String) throws -> [UInt8] {
        try #require(Hex.decode(text), "bad hex in vector")
    }

    static func b64(_ text: String?) throws -> [UInt8] {
        try #require(text.flatMap { Base64URL.decode($0) }, "bad base64url in vector")
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A date from seconds since 1970.
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
