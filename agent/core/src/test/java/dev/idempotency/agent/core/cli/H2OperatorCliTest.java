package dev.idempotency.agent.core.cli;

/** The command line on an in-memory H2 database shared with the test. */
class H2OperatorCliTest extends OperatorCliContract {
    private final String url = "jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1";

    @Override protected String url() { return url; }
    @Override protected String unreachableUrl() { return "jdbc:h2:tcp://127.0.0.1:1/nothing-listens-here"; }
    @Override protected String dropColumn(String column) { return "ALTER TABLE " + table + " DROP COLUMN " + column; }
    @Override protected String dialectName() { return "h2"; }

    /** The store opens H2 connections with SET WRITE_DELAY 0, which H2 allows only to an admin: no read-only user to probe. */
    @Override
    protected String readOnlyUserUrl() {
        return null;
    }

    @org.junit.jupiter.api.Test
    void anEmbeddedDatabaseThatDoesNotExistIsNeverCreatedByTheTool() {
        java.nio.file.Path store = temp.resolve("no-such-store");
        String missing = "jdbc:h2:file:" + store;
        Run list = cli("", "keys", "list", "--url", missing);
        org.junit.jupiter.api.Assertions.assertEquals(1, list.exit, list.toString());
        Run doctor = cli("", "doctor", "--url", missing);
        org.junit.jupiter.api.Assertions.assertEquals(0, doctor.exit, doctor.toString());
        org.junit.jupiter.api.Assertions.assertTrue(doctor.out.contains("warn  store") && doctor.out.contains("does not exist yet"), doctor.toString());
        org.junit.jupiter.api.Assertions.assertFalse(java.nio.file.Files.exists(temp.resolve("no-such-store.mv.db")), "no database file was made");
    }
}
