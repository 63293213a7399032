package dev.idempotency.demo.transfers;

import javax.servlet.ServletContextEvent;
import javax.servlet.ServletContextListener;
import javax.servlet.annotation.WebListener;
import java.sql.SQLException;

/** Creates the application's table when it starts, before any request. */
@WebListener
public class SchemaAtStartup implements ServletContextListener {
    @Override
    public void contextInitialized(ServletContextEvent event) {
        try {
            Transfers.ensureTable();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the transfers table", e);
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
    }
}
