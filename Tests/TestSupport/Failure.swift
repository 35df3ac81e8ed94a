import Contracts

/// Runs `body` and returns the `ServiceFailure` it threw, or nil; any other error is an
/// `.internal` failure that names it.
public func failure(_ body: () async throws -> Void) async -> ServiceFailure? {
    do {
        try await body()
        return nil
    } catch let failure as ServiceFailure {
        return failure
    } catch {
        return ServiceFailure(.internal, "\(error)")
    }
}
