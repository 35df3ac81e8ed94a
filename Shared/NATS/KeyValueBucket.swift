import CNats
import Collections
import Foundation

/// A JetStream key-value bucket, for a little state several replicas share and change by compare-and-set (the
/// webhook relay's claims and leases): each call blocks a thread of ``BlockingCall``, never a cooperative one.
public final class KeyValueBucket: Sendable {
    /// One key's value and the revision it was written at.
    public struct Entry: Sendable, Equatable {
        public let value: [UInt8]
        public let revision: UInt64
    }

    /// The bucket's name.
    public let name: String
    private let store: StoreHandle
    private let connection: NATSConnection

    fileprivate init(name: String, store: StoreHandle, connection: NATSConnection) {
        self.name = name
        self.store = store
        self.connection = connection
    }

    /// The value of `key`; nil when it has none (never written, or deleted).
    public func get(_ key: String) async throws -> Entry? {
        try Subject.validate(key, wildcards: false)
        let store = self.store
        return try await BlockingCall.run {
            var entry: OpaquePointer?
            let status = kvStore_Get(&entry, store.raw, key)
            defer { if let entry { kvEntry_Destroy(entry) } }
            if status == NATS_NOT_FOUND { return nil }
            try check(status, "read '\(key)'")
            guard let entry else { return nil }
            let count = Int(kvEntry_ValueLen(entry))
            let value = count == 0 ? [] : [UInt8](UnsafeRawBufferPointer(start: kvEntry_Value(entry), count: count))
            return Entry(value: value, revision: kvEntry_Revision(entry))
        }
    }

    /// Writes `value` under `key` only if it has none; the new revision, or nil when the key has a value already.
    public func create(_ key: String, _ value: [UInt8]) async throws -> UInt64? {
        try Subject.validate(key, wildcards: false)
        let store = self.store
        let written: UInt64? = try await BlockingCall.run {
            var revision: UInt64 = 0
            let status = value.withUnsafeBytes { kvStore_Create(&revision, store.raw, key, $0.baseAddress, Int32($0.count)) }
            return status == NATS_OK ? revision : nil
        }
        if let written { return written }
        // Refused: taken by someone, or the request failed (then this says so).
        guard try await get(key) != nil else { throw NATSError(code: .protocolError, detail: "could not create '\(key)' in '\(name)'") }
        return nil
    }

    /// Writes `value` under `key` only if its current revision is `revision`; the new revision, or nil when someone
    /// wrote it since (or deleted it).
    public func update(_ key: String, _ value: [UInt8], revision: UInt64) async throws -> UInt64? {
        try Subject.validate(key, wildcards: false)
        let store = self.store
        let written: UInt64? = try await BlockingCall.run {
            var next: UInt64 = 0
            let status = value.withUnsafeBytes { kvStore_Update(&next, store.raw, key, $0.baseAddress, Int32($0.count), revision) }
            return status == NATS_OK ? next : nil
        }
        if let written { return written }
        guard let current = try await get(key), current.revision == revision else { return nil }
        throw NATSError(code: .protocolError, detail: "could not update '\(key)' in '\(name)'")
    }

    /// Deletes `key`'s value (a delete marker; ``create(_:_:)`` can write it again).
    public func delete(_ key: String) async throws {
        try Subject.validate(key, wildcards: false)
        let store = self.store
        try await BlockingCall.run { try check(kvStore_Delete(store.raw, key), "delete '\(key)'") }
    }
}

/// A cnats `kvStore`, freed with its last reference. `@unchecked Sendable`: cnats's store calls are thread-safe, and the
/// pointer is freed only in `deinit`, when no call can reach it.
private final class StoreHandle: @unchecked Sendable {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        kvStore_Destroy(raw)
    }
}

extension JetStream {
    /// Binds the existing key-value bucket `name`. Refuses one that allows direct gets, as the webhook-relay's bucket made
    /// by the release of stop 40 (through `js_CreateKeyValue`) does: cnats reads such a bucket through `DIRECT.GET`, which
    /// no service's grant allows, so every read would time out; the error says how to turn them off.
    public func keyValue(_ name: String) async throws -> KeyValueBucket {
        try Subject.validateName(name, kind: "bucket name")
        let connection = self.connection
        return try await BlockingCall.run {
            if try Self.allowsDirect(connection.handle, bucket: name) == true {
                throw NATSError(code: .protocolError, detail: "key-value bucket '\(name)' allows direct gets (made by an earlier "
                                + "release); turn them off as the stream-admin: nats stream edit KV_\(name) --no-allow-direct")
            }
            var store: OpaquePointer?
            try check(js_KeyValue(&store, connection.handle.jetStream, name), "bind key-value bucket '\(name)'")
            guard let store else { throw NATSError(code: .protocolError, detail: "js_KeyValue returned no store") }
            return KeyValueBucket(name: name, store: StoreHandle(store), connection: connection)
        }
    }

    /// Creates the key-value bucket `name` (one value a key, file storage, `replicas` copies; values of at most
    /// `maxValueSize` bytes, `maxBytes` in all, when given) when it is missing. One that exists is left as it is (made
    /// by an older release with other limits, or edited by an administrator: no service edits a stream).
    ///
    /// Its stream is made here rather than by `js_CreateKeyValue`, which always allows direct gets: nats-server sends a
    /// direct get's answer, the stored value as it is, to whatever reply subject the request names without a
    /// permission check, so whoever may write a key and direct-get it could have any subject (an event's) receive bytes
    /// of its choosing. Without direct gets, reads go through `STREAM.MSG.GET`, whose answer is wrapped in JSON.
    ///
    /// Returns whether the bucket allows direct gets (one an earlier release made), which ``keyValue(_:)`` refuses.
    @discardableResult
    public func ensureKeyValue(_ name: String, replicas: Int = 1, maxValueSize: Int? = nil, maxBytes: Int? = nil) async throws -> Bool {
        try Subject.validateName(name, kind: "bucket name")
        let handle = connection.handle
        return try await BlockingCall.run {
            if let allowsDirect = try Self.allowsDirect(handle, bucket: name) { return allowsDirect }
            _ = try JetStream.addStream(handle, name: "KV_\(name)", subjects: ["$KV.\(name).>"], maxAge: nil, replicas: replicas,
                                        what: "key-value bucket '\(name)'") { config in
                config.MaxMsgsPerSubject = 1
                config.Discard = js_DiscardNew
                config.DenyDelete = true
                config.AllowRollup = true
                config.AllowDirect = false
                if let maxValueSize { config.MaxMsgSize = Int32(maxValueSize) }
                if let maxBytes { config.MaxBytes = Int64(maxBytes) }
            }
            return false
        }
    }

    /// Whether bucket `name`'s stream allows direct gets; nil when there is no such bucket.
    private static func allowsDirect(_ handle: ConnectionHandle, bucket name: String) throws -> Bool? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        let status = js_GetStreamInfo(&info, handle.jetStream, "KV_\(name)", nil, &errorCode)
        defer { if let info { jsStreamInfo_Destroy(info) } }
        if errorCode == JSStreamNotFoundErr || status == NATS_NOT_FOUND { return nil }
        try checkJS(status, errorCode, "read key-value bucket '\(name)'")
        guard let config = info?.pointee.Config else {
            throw NATSError(code: .protocolError, detail: "key-value bucket '\(name)' has no configuration")
        }
        return config.pointee.AllowDirect
    }
}
