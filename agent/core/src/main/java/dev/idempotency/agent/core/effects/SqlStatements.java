package dev.idempotency.agent.core.effects;

import java.util.Locale;

/**
 * What an SQL statement does to the database, from its text: enough to tell reads (no mark needed) from writes, and to
 * see transaction control written as SQL. Anything not recognised as a read counts as a write.
 */
final class SqlStatements {

    /** DDL: a write that MySQL and MariaDB precede with an implicit commit of what is open. */
    enum Kind { READ, WRITE, COMMIT, ROLLBACK, DDL }

    private SqlStatements() {
    }

    static Kind kindOf(String sql) {
        if (sql == null) return Kind.WRITE;
        int start = skipNoise(sql, 0);
        // nothing but blanks and comments: the empty statement a driver runs to check its connection (PostgreSQL's isValid)
        if (start == sql.length()) return Kind.READ;
        int end = start;
        while (end < sql.length() && Character.isLetter(sql.charAt(end))) end++;
        String keyword = sql.substring(start, end).toUpperCase(Locale.ROOT);
        if (severalStatements(sql, end)) return Kind.WRITE; // "SET ...; INSERT ...": only the first keyword was read
        switch (keyword) {
            case "SELECT":
                // SELECT ... INTO a new table writes (PostgreSQL, H2); a variable target (MySQL's INTO @v) is a
                // read, but telling them apart is not worth a wrong guess
                return mentions(sql, end, "INTO") ? Kind.WRITE : Kind.READ;
            case "SET": // SET autocommit = 1 commits an open transaction (MySQL, MariaDB), SET PASSWORD too
                if (mentions(sql, end, "PASSWORD")) return Kind.DDL;
                return mentions(sql, end, "AUTOCOMMIT") ? Kind.COMMIT : Kind.READ;
            case "EXPLAIN": // EXPLAIN ANALYZE runs the statement (PostgreSQL)
                return mentions(sql, end, "ANALYZE") || mentions(sql, end, "ANALYSE") ? Kind.WRITE : Kind.READ;
            case "SHOW": case "DESCRIBE": case "DESC": case "VALUES": case "TABLE": case "SAVEPOINT": case "RELEASE":
                return Kind.READ;
            // MySQL and MariaDB commit what is open before these
            case "BEGIN": case "START": case "LOCK": case "UNLOCK":
                return Kind.COMMIT;
            case "CREATE": case "ALTER": case "DROP": case "TRUNCATE": case "RENAME": case "GRANT": case "REVOKE":
            // also committing implicitly on MySQL and MariaDB: maintenance, caches, plugins, passwords
            case "ANALYZE": case "OPTIMIZE": case "REPAIR": case "CHECK": case "FLUSH": case "RESET": case "CACHE": case "LOAD":
            case "INSTALL": case "UNINSTALL":
                return Kind.DDL;
            case "WITH": // a data-modifying WITH (PostgreSQL) writes
                return mentions(sql, end, "INSERT") || mentions(sql, end, "UPDATE") || mentions(sql, end, "DELETE")
                        || mentions(sql, end, "MERGE") ? Kind.WRITE : Kind.READ;
            case "COMMIT": case "END":
            case "PREPARE": // PREPARE TRANSACTION (PostgreSQL's two phases): what is open is marked before it is prepared
                return Kind.COMMIT;
            case "ROLLBACK":
                return mentions(sql, end, "TO") ? Kind.READ : Kind.ROLLBACK; // ROLLBACK TO SAVEPOINT keeps earlier writes
            default:
                return Kind.WRITE;
        }
    }

    /** Whether a semicolon is followed by more than blanks and comments: a string of several statements. */
    private static boolean severalStatements(String sql, int from) {
        for (int semicolon = sql.indexOf(';', from); semicolon >= 0; semicolon = sql.indexOf(';', semicolon + 1)) {
            if (skipNoise(sql, semicolon + 1) < sql.length()) return true;
        }
        return false;
    }

    /** Whitespace, comments and opening parentheses before the first keyword; MySQL's and MariaDB's executable comments are kept. */
    private static int skipNoise(String sql, int from) {
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c) || c == '(') {
                i++;
            } else if (sql.startsWith("--", i)) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? sql.length() : eol + 1;
            } else if (sql.startsWith("/*", i) && !sql.startsWith("/*!", i) && !sql.startsWith("/*M!", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? sql.length() : close + 2;
            } else {
                return i;
            }
        }
        return i;
    }

    /** Whether a word occurs as a whole word after {@code from}, in any case (inside a literal too: erring on writes). */
    private static boolean mentions(String sql, int from, String word) {
        String upper = sql.toUpperCase(Locale.ROOT);
        for (int i = upper.indexOf(word, from); i >= 0; i = upper.indexOf(word, i + 1)) {
            boolean before = i == 0 || !Character.isLetterOrDigit(upper.charAt(i - 1)) && upper.charAt(i - 1) != '_';
            int after = i + word.length();
            boolean behind = after >= upper.length() || !Character.isLetterOrDigit(upper.charAt(after)) && upper.charAt(after) != '_';
            if (before && behind) return true;
        }
        return false;
    }
}
