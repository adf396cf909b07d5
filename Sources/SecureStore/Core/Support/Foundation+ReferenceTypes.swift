import Foundation

// Foundation's reference types and Decimal, stored as GRDB stores them:
// NSString as text, NSData as a blob, NSDate and NSURL as their value
// types, NSUUID as 16 bytes, NSNull as NULL, numbers as integers when they
// are integers, Decimal as text (no precision lost to a double).

/// Parses and prints decimal numbers the same way everywhere.
private let posixLocale = Locale(identifier: "en_US_POSIX")

extension NSString: DatabaseValueConvertible {
    /// The string, as TEXT.
    public var databaseValue: DatabaseValue { (self as String).databaseValue }

    /// TEXT as a string (as `String` converts).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        String.fromDatabaseValue(dbValue).map { Self(string: $0) }
    }
}

extension NSData: DatabaseValueConvertible {
    /// The bytes, as a BLOB.
    public var databaseValue: DatabaseValue { Data(referencing: self).databaseValue }

    /// A BLOB (or TEXT, as `Data` converts) as bytes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Data.fromDatabaseValue(dbValue).flatMap { NSData(data: $0) as? Self }
    }
}

extension NSDate: DatabaseValueConvertible {
    /// The date as `Date` stores it.
    public var databaseValue: DatabaseValue { Date(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate).databaseValue }

    /// What `Date` reads, as an `NSDate`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Date.fromDatabaseValue(dbValue).flatMap { NSDate(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) as? Self }
    }
}

extension NSURL: DatabaseValueConvertible {
    /// The absolute string, as TEXT.
    public var databaseValue: DatabaseValue {
        #if canImport(Darwin)
        absoluteString?.databaseValue ?? .null
        #else
        absoluteString.databaseValue
        #endif
    }

    /// TEXT that is a URL.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        String.fromDatabaseValue(dbValue).flatMap { NSURL(string: $0) as? Self }
    }
}

extension NSUUID: DatabaseValueConvertible {
    /// The 16 bytes, as a BLOB (as `UUID` stores it).
    public var databaseValue: DatabaseValue { UUID(uuidString: uuidString)?.databaseValue ?? .null }

    /// What `UUID` reads (16 bytes, or the text form), as an `NSUUID`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        UUID.fromDatabaseValue(dbValue).flatMap { NSUUID(uuidString: $0.uuidString) as? Self }
    }
}

extension NSNull: DatabaseValueConvertible {
    /// NULL.
    public var databaseValue: DatabaseValue { .null }

    /// Always nil: NULL reads as nil, not as `NSNull`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? { nil }
}

extension NSNumber: DatabaseValueConvertible {
    /// An integer when the number is one (a whole `NSDecimalNumber` that
    /// fits in Int64 too), a REAL otherwise.
    public var databaseValue: DatabaseValue {
        if let decimal = self as? NSDecimalNumber {
            return decimal.decimalValue.isWholeInt64 ? decimal.int64Value.databaseValue : doubleValue.databaseValue
        }
        switch UInt8(bitPattern: objCType.pointee) {
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            return doubleValue.databaseValue
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            precondition(uint64Value <= UInt64(Int64.max), "\(uint64Value) does not fit in a database integer (Int64)")
            return Int64(uint64Value).databaseValue
        default:
            return int64Value.databaseValue
        }
    }

    /// An integer or a REAL as a number; TEXT that holds a decimal number
    /// as an `NSDecimalNumber`. An `NSDecimalNumber` is asked for, an
    /// `NSDecimalNumber` is made.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        let decimal = self is NSDecimalNumber.Type
        switch dbValue.storage {
        case .int64(let value): return (decimal ? NSDecimalNumber(value: value) : NSNumber(value: value)) as? Self
        case .double(let value): return (decimal ? NSDecimalNumber(value: value) : NSNumber(value: value)) as? Self
        case .string(let text): return Decimal(string: text, locale: posixLocale).flatMap { NSDecimalNumber(decimal: $0) as? Self }
        case .null, .blob: return nil
        }
    }
}

extension Decimal: DatabaseValueConvertible {
    /// The number as TEXT, in full: `"12.5"`.
    public var databaseValue: DatabaseValue {
        NSDecimalNumber(decimal: self).description(withLocale: posixLocale).databaseValue
    }

    /// An integer, a REAL, or TEXT that holds a decimal number.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue.storage {
        case .int64(let value): return Decimal(value)
        case .double(let value): return Decimal(value)
        case .string(let text): return Decimal(string: text, locale: posixLocale)
        case .null, .blob: return nil
        }
    }
}

extension Decimal {
    /// True when the number has no fractional part and fits in Int64.
    fileprivate var isWholeInt64: Bool {
        var value = self
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == self && self >= Decimal(Int64.min) && self <= Decimal(Int64.max)
    }
}

extension CGFloat: DatabaseValueConvertible {
    /// The value as a REAL.
    public var databaseValue: DatabaseValue { Double(self).databaseValue }

    /// What `Double` reads, as a `CGFloat`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> CGFloat? {
        Double.fromDatabaseValue(dbValue).map { CGFloat($0) }
    }
}
