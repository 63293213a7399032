package dev.idempotency.agent.core.effects;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SqlStatementsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT * FROM orders WHERE id = ?|READ",
        "  select id from orders for update|READ",
        "/* a hint */ -- and a comment\\n (SELECT 1)|READ",
        "SHOW TABLES|READ",
        "EXPLAIN SELECT 1|READ",
        "VALUES 1|READ",
        "SET search_path TO app|READ",
        "BEGIN|COMMIT",
        "START TRANSACTION|COMMIT",
        "LOCK TABLES orders WRITE|COMMIT",
        "SET LOCAL lock_timeout = '5s'; INSERT INTO orders VALUES (1)|WRITE",
        "SELECT 1;|READ",
        "SELECT 1; -- done|READ",
        "EXPLAIN ANALYZE DELETE FROM orders|WRITE",
        "/*!40101 INSERT INTO orders VALUES (1) */|WRITE",
        "SAVEPOINT s1|READ",
        "ROLLBACK TO SAVEPOINT s1|READ",
        "WITH recent AS (SELECT * FROM orders) SELECT * FROM recent|READ",
        "INSERT INTO orders VALUES (?)|WRITE",
        "update orders set paid = true|WRITE",
        "DELETE FROM orders|WRITE",
        "MERGE INTO orders KEY (id) VALUES (1)|WRITE",
        "CALL charge(?)|WRITE",
        "CREATE TABLE t (id INT)|DDL",
        "truncate orders|DDL",
        "ANALYZE TABLE orders|DDL",
        "SET PASSWORD = PASSWORD('x')|DDL",
        "/*M!100000 INSERT INTO orders VALUES (1) */|WRITE",
        "SELECT * INTO backup FROM orders|WRITE",
        "WITH moved AS (DELETE FROM orders RETURNING *) SELECT * FROM moved|WRITE",
        "SELECT charge_card(?)|READ",
        "COMMIT|COMMIT",
        "end|COMMIT",
        "PREPARE TRANSACTION 'tx-1'|COMMIT",
        "SET autocommit = 1|COMMIT",
        "ROLLBACK|ROLLBACK",
        "''|READ",
        "'  /* only a comment */ '|READ",
        "{call charge(?)}|WRITE",
        "?= call charge(?)|WRITE",
    })
    void statementsAreReadsOnlyWhenTheirTextSaysSo(String sql, SqlStatements.Kind kind) {
        assertEquals(kind, SqlStatements.kindOf(sql.replace("\\n", "\n")));
    }

    @ParameterizedTest(name = "null -> WRITE")
    @CsvSource(value = {"x"})
    void aStatementWithoutKnownTextIsAWrite(String ignored) {
        assertEquals(SqlStatements.Kind.WRITE, SqlStatements.kindOf(null));
    }
}
