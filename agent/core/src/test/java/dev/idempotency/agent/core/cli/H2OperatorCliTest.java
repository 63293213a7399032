package dev.idempotency.agent.core.cli;

/** The command line on an in-memory H2 database shared with the test. */
class H2OperatorCliTest extends OperatorCliContract {
    private final String url = "jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1";

    @Override protected String url() { return url; }
    @Override protected String unreachableUrl() { return "jdbc:h2:tcp://127.0.0.1:1/nothing-listens-here"; }
    @Override protected String dropColumn(String column) { return "ALTER TABLE " + table + " DROP COLUMN " + column; }
    @Override protected String dialectName() { return "h2"; }
}
