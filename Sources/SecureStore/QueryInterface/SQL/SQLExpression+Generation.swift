// Turning expressions into SQL text, and what the request generator asks
// of an expression (the column it names, the rows it identifies).

extension SQLExpression {
    /// The SQL text; values are appended to the context's arguments.
    /// `wrapped`: the expression is an operand, and a compound one needs
    /// parentheses.
    func sql(_ context: SQLGenerationContext, wrapped: Bool = false) throws -> String {
        func parenthesized(_ sql: String) -> String { wrapped ? "(\(sql))" : sql }
        func operand(_ expression: SQLExpression) throws -> String { try expression.sql(context, wrapped: true) }

        switch impl {
        case .column(let name):
            return name.quotedDatabaseIdentifier
        case let .qualifiedColumn(name, alias):
            guard let qualifier = context.qualifier(for: alias) else { return name.quotedDatabaseIdentifier }
            return qualifier.quotedDatabaseIdentifier + "." + name.quotedDatabaseIdentifier
        case .databaseValue(let value):
            return try context.placeholder(for: value)
        case .rowValue(let expressions):
            return try "(" + expressions.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .subquery(let subquery):
            return try "(" + subquery.sql(context) + ")"
        case .literal(let literal):
            return parenthesized(try literal.sql(context))
        case let .cast(expression, type):
            return try "CAST(\(expression.sql(context)) AS \(type))"
        case let .between(value, lower, upper, isNegated):
            return parenthesized(try "\(operand(value)) \(isNegated ? "NOT BETWEEN" : "BETWEEN") \(operand(lower)) AND \(operand(upper))")
        case let .binary(op, lhs, rhs):
            if op == SQLExpression.jsonExtractSQL || op == SQLExpression.jsonExtractJSON {
                try context.db.requireSQLite(3_038_000, feature: "The JSON operator \(op)")
            }
            return parenthesized(try "\(operand(lhs)) \(op) \(operand(rhs))")
        case let .like(lhs, rhs, escape, isNegated):
            var sql = try "\(operand(lhs)) \(isNegated ? "NOT LIKE" : "LIKE") \(operand(rhs))"
            if let escape { sql += try " ESCAPE \(operand(escape))" }
            return parenthesized(sql)
        case let .associative(op, operands):
            return parenthesized(try operands.map(operand).joined(separator: " \(op.sql) "))
        case let .exists(subquery, isNegated):
            return parenthesized(try "\(isNegated ? "NOT EXISTS" : "EXISTS") (\(subquery.sql(context)))")
        case let .in(value, collection, isNegated):
            return parenthesized(try "\(operand(value)) \(isNegated ? "NOT IN" : "IN") \(collection.sql(context))")
        case let .unary(op, value):
            return parenthesized(try op + operand(value))
        case let .compare(op, lhs, rhs):
            return parenthesized(try "\(operand(lhs)) \(op.rawValue) \(operand(rhs))")
        case .not(let value):
            return parenthesized(try "NOT \(operand(value))")
        case let .collated(value, collation):
            return parenthesized(try "\(value.sql(context)) COLLATE \(collation.rawValue)")
        case .countAll:
            return "COUNT(*)"
        case .function(let call):
            return try call.sql(context, wrapped: wrapped)
        case let .isEmpty(value, isNegated):
            return parenthesized(try "\(operand(value)) \(isNegated ? "> 0" : "= 0")")
        case .fastPrimaryKey:
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the primary key expression is not qualified with a table")
        case .qualifiedFastPrimaryKey(let alias):
            let column = try context.db.fastPrimaryKeyColumn(alias.tableName)
            return try SQLExpression.qualifiedColumn(column, alias).sql(context, wrapped: wrapped)
        case let .tableMatch(alias, pattern):
            let table = context.qualifier(for: alias) ?? context.resolvedName(for: alias)
            return parenthesized(try "\(table.quotedDatabaseIdentifier) MATCH \(operand(pattern))")
        case let .qualifiedExists(alias, isNegated):
            // A joined row exists when one of its non-null columns is not NULL.
            let columns = try context.db.existenceCheckColumns(in: alias.tableName)
            let tests = columns.map { name -> SQLExpression in
                .compare(isNegated ? .is : .isNot, .qualifiedColumn(name, alias), .null)
            }
            return try SQLExpression.associative(isNegated ? .and : .or, tests).sql(context, wrapped: wrapped)
        }
    }

    /// The SQL text with values written as SQL literals (`'it''s'`), for
    /// the schema: defaults, CHECK constraints, index conditions.
    func quotedSQL(_ db: Database) throws -> String {
        try sql(SQLGenerationContext(db, inlinesValues: true))
    }

    /// The column of `alias` that the expression is, if it is one. With
    /// `acceptsBijection`, also through functions that keep values apart
    /// (`-a`, `HEX(a)`, `a || 'x'`).
    func column(_ db: Database, for alias: TableAliasBase, acceptsBijection: Bool = false) throws -> String? {
        switch impl {
        case let .qualifiedColumn(name, other):
            return alias == other ? name : nil
        case let .collated(value, _):
            return try value.column(db, for: alias, acceptsBijection: acceptsBijection)
        case let .unary("-", value) where acceptsBijection:
            return try value.column(db, for: alias, acceptsBijection: true)
        case let .associative(op, operands) where acceptsBijection && op == .concat:
            let variables = operands.filter { !$0.isConstantInRequest }
            return variables.count == 1 ? try variables[0].column(db, for: alias, acceptsBijection: true) : nil
        case .function(let call) where acceptsBijection && !call.isAggregate:
            let name = call.name.uppercased()
            if ["HEX", "QUOTE"].contains(name) && call.arguments.count == 1
                || name == "IFNULL" && call.arguments.count == 2 && call.arguments[1].isConstantInRequest {
                return try call.arguments[0].column(db, for: alias, acceptsBijection: true)
            }
            return nil
        case .qualifiedFastPrimaryKey(let other):
            return alias == other ? try db.fastPrimaryKeyColumn(alias.tableName) : nil
        default:
            return nil
        }
    }

    /// The columns of `alias` that the expression fixes to constant values
    /// (`a = 1 AND b = 2` fixes a and b): when they form a unique key, the
    /// request selects one row at most.
    func identifyingColumns(_ db: Database, for alias: TableAliasBase) throws -> Set<String> {
        switch impl {
        case .associative(.and, let operands):
            return try operands.reduce(into: []) { try $0.formUnion($1.identifyingColumns(db, for: alias)) }
        case let .compare(op, lhs, rhs) where op == .equal || op == .is:
            if rhs.isConstantInRequest, let column = try lhs.column(db, for: alias, acceptsBijection: true) { return [column] }
            if lhs.isConstantInRequest, let column = try rhs.column(db, for: alias, acceptsBijection: true) { return [column] }
            return []
        case let .in(value, collection, false):
            // `a IN (1)` with one value fixes a too.
            if collection.expressions?.count == 1, let column = try value.column(db, for: alias, acceptsBijection: true) {
                return [column]
            }
            return []
        case let .collated(value, _):
            return try value.identifyingColumns(db, for: alias)
        default:
            return []
        }
    }

    /// The rowids the expression restricts `alias` to, or nil when it does
    /// not restrict them: observation then tracks those rows only.
    func identifyingRowIDs(_ db: Database, for alias: TableAliasBase) throws -> Set<Int64>? {
        switch impl {
        case .databaseValue(let value):
            return value.isNull || value == false.databaseValue ? [] : nil
        case .associative(.and, let operands):
            var result: Set<Int64>?
            for operand in operands {
                guard let rowIDs = try operand.identifyingRowIDs(db, for: alias) else { continue }
                result = result.map { $0.intersection(rowIDs) } ?? rowIDs
            }
            return result
        case .associative(.or, let operands):
            var result: Set<Int64> = []
            for operand in operands {
                guard let rowIDs = try operand.identifyingRowIDs(db, for: alias) else { return nil }
                result.formUnion(rowIDs)
            }
            return result
        case let .in(value, collection, false):
            guard let items = collection.expressions, let column = try value.column(db, for: alias),
                  try db.columnIsRowID(column, of: alias.tableName) else { return nil }
            return Set(items.compactMap { item in
                if case .databaseValue(let value) = item.impl { return Int64.fromDatabaseValue(value) }
                return nil
            })
        case let .compare(op, lhs, rhs) where op == .equal || op == .is:
            for (columnSide, valueSide) in [(lhs, rhs), (rhs, lhs)] {
                if let column = try columnSide.column(db, for: alias), try db.columnIsRowID(column, of: alias.tableName),
                   case .databaseValue(let value) = valueSide.impl {
                    return Int64.fromDatabaseValue(value).map { [$0] } ?? []
                }
            }
            return nil
        case let .collated(value, _):
            return try value.identifyingRowIDs(db, for: alias)
        default:
            return nil
        }
    }
}

extension SQLExpression.FunctionCall {
    func sql(_ context: SQLGenerationContext, wrapped: Bool) throws -> String {
        if let version = SQLExpression.sqliteVersion(ofFunction: name) {
            try context.db.requireSQLite(version, feature: "The SQL function \(name.uppercased())")
        }
        var sql = name + (isDistinct ? "(DISTINCT " : "(")
        sql += try arguments.map { try $0.sql(context) }.joined(separator: ", ")
        if let ordering {
            try context.db.requireSQLite(3_044_000, feature: "ORDER BY inside an aggregate function")
            sql += try " ORDER BY " + ordering.sql(context)
        }
        sql += ")"
        if let filter {
            try context.db.requireSQLite(3_030_000, feature: "FILTER clauses of aggregate functions")
            sql += try " FILTER (WHERE \(filter.sql(context)))"
            if wrapped { sql = "(\(sql))" }
        }
        return sql
    }
}
