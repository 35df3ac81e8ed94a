import HTTPClient

/// ``WebhookPoster`` over the shared HTTP client: answers read up to 64 KiB, redirects never followed, and (unless
/// the client allows any destination) public addresses only.
struct HTTPWebhookPoster: WebhookPoster {
    let client: HTTPClient
    /// The largest answer body read; the rest is dropped unread.
    let maxAnswerSize: Int

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws(WebhookPostFailure) -> Int {
        do {
            return try await client.execute(HTTPClientRequest(url: url, method: "POST", headers: headers, body: body, timeout: timeout,
                                                              maxResponseBodyBytes: maxAnswerSize)).status
        } catch let error as HTTPClientError {
            throw WebhookPostFailure(reason: Self.reason(error), detail: error.description)
        } catch {
            throw WebhookPostFailure(reason: "transport", detail: String(describing: error))
        }
    }

    /// The `reason` label of a failed attempt.
    static func reason(_ error: HTTPClientError) -> String {
        if error == .cancelled { return "cancelled" }
        if error.isTimeout { return "timeout" }
        if error == .destinationRefused { return "refused-destination" }
        if error.isConnectionFailure { return "connection" }
        return "transport"
    }
}
