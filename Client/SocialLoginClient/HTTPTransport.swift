import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request. `URLSessionTransport` is the default; an app may supply its own
/// (to add certificate pinning, or to log).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and the response; throws only when no response came.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}
