import Foundation

/// Formats and parses SQLite's date text without DateFormatter, which is
/// slow and depends on locale settings.
enum SQLiteDateFormat {
    static func string(from date: Date) -> String {
        // Whole milliseconds since 1970, floored so that times before 1970
        // keep a positive millisecond part.
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, msOfDay) = floorDivide(totalMilliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))"
    }

    /// The date of a text in one of the formats of
    /// ``DatabaseDateComponents``, with a date part: a time alone is not a
    /// date.
    static func date(from text: String) -> Date? {
        components(from: text).flatMap(date(from:))
    }

    /// The date of components with a date part; out-of-range values (month
    /// 13, day 32) roll over, as a calendar would.
    static func date(from components: DatabaseDateComponents) -> Date? {
        guard components.format.hasYMDComponents else { return nil }
        let parts = components.dateComponents
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        let hour = parts.hour ?? 0, minute = parts.minute ?? 0, second = parts.second ?? 0
        var seconds: Double
        if (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 {
            seconds = Double(daysSince1970(year: year, month: month, day: day)) * 86_400
                + Double(hour * 3600 + minute * 60 + second)
        } else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: 0)!
            var utc = parts
            utc.timeZone = nil
            guard let date = calendar.date(from: utc) else { return nil }
            return Date(timeIntervalSince1970: date.timeIntervalSince1970 - Double(parts.timeZone?.secondsFromGMT() ?? 0))
        }
        seconds += Double(parts.nanosecond ?? 0) / 1e9
        seconds -= Double(parts.timeZone?.secondsFromGMT() ?? 0)
        return Date(timeIntervalSince1970: seconds)
    }

    /// Parses `YYYY-MM-DD`, optionally followed by a space or `T` and a
    /// time; or a time alone: `HH:MM`, `HH:MM:SS`, `HH:MM:SS.SSS` (one to
    /// three fraction digits are kept, more are read and dropped), then an
    /// optional `Z` or `±HH:MM`. Out-of-range numbers are kept as they are.
    static func components(from text: String) -> DatabaseDateComponents? {
        var text = text
        return text.withUTF8 { components(UnsafeRawBufferPointer($0)) }
    }

    static func components(_ bytes: UnsafeRawBufferPointer) -> DatabaseDateComponents? {
        var scanner = DigitScanner(bytes)
        var parts = DateComponents()
        let format: DatabaseDateComponents.Format
        if bytes.count > 4, bytes[4] == UInt8(ascii: "-") {
            guard let year = scanner.number(digits: 4), scanner.skip("-"),
                  let month = scanner.number(digits: 2), scanner.skip("-"),
                  let day = scanner.number(digits: 2)
            else { return nil }
            (parts.year, parts.month, parts.day) = (year, month, day)
            if scanner.isAtEnd { return DatabaseDateComponents(parts, format: .YMD) }
            guard scanner.skip(" ") || scanner.skip("T"), let time = scanTime(&scanner, into: &parts) else { return nil }
            switch time {
            case .HM: format = .YMD_HM
            case .HMS: format = .YMD_HMS
            default: format = .YMD_HMSS
            }
        } else if bytes.count > 2, bytes[2] == UInt8(ascii: ":") {
            guard let time = scanTime(&scanner, into: &parts) else { return nil }
            format = time
        } else {
            return nil
        }
        guard scanner.isAtEnd else { return nil }
        return DatabaseDateComponents(parts, format: format)
    }

    private static func scanTime(_ scanner: inout DigitScanner, into parts: inout DateComponents) -> DatabaseDateComponents.Format? {
        guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2) else { return nil }
        (parts.hour, parts.minute) = (hour, minute)
        if scanner.isAtEnd || scanTimeZone(&scanner, into: &parts) { return .HM }
        guard scanner.skip(":"), let second = scanner.number(digits: 2) else { return nil }
        parts.second = second
        if scanner.isAtEnd || scanTimeZone(&scanner, into: &parts) { return .HMS }
        guard scanner.skip("."), let fraction = scanner.fractionDigits(keeping: 3), fraction.1 > 0 else { return nil }
        parts.nanosecond = fraction.0 * 1_000_000
        _ = scanTimeZone(&scanner, into: &parts)
        return .HMSS
    }

    private static func scanTimeZone(_ scanner: inout DigitScanner, into parts: inout DateComponents) -> Bool {
        if scanner.skip("Z") {
            parts.timeZone = TimeZone(secondsFromGMT: 0)
            return true
        }
        guard let sign = scanner.sign() else { return false }
        guard let hours = scanner.number(digits: 2), scanner.skip(":"), let minutes = scanner.number(digits: 2) else { return false }
        parts.timeZone = TimeZone(secondsFromGMT: sign * (hours * 3600 + minutes * 60))
        return true
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b, remainder = a % b
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }

    // Days <-> proleptic Gregorian dates, computed in 400-year eras
    // (146,097 days each), with years starting in March so that the leap
    // day falls at the end.
    private static func civilDate(daysSince1970: Int64) -> (Int64, Int64, Int64) {
        let z = daysSince1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

private struct DigitScanner {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func number(digits: Int) -> Int? {
        guard position + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[position..<position + digits] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        position += digits
        return value
    }

    /// Reads the digits of a fraction: the value of the first `kept`
    /// digits, scaled to `kept` digits (".5" is 500 for 3), and how many
    /// digits there were.
    mutating func fractionDigits(keeping kept: Int) -> (Int, Int)? {
        var value = 0, count = 0
        while position < bytes.count, (48...57).contains(bytes[position]) {
            if count < kept { value = value * 10 + Int(bytes[position] - 48) }
            position += 1
            count += 1
        }
        for _ in min(count, kept)..<kept { value *= 10 }
        return (value, count)
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
