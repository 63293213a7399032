package dev.idempotency.demo.transfers;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import javax.sql.DataSource;

/** The same transfer through Spring: a @Transactional service on the container's DataSource, under /spring. */
@Configuration
@EnableWebMvc
@EnableTransactionManagement
public class SpringTransfers {

    @Bean
    public DataSource dataSource() {
        return Transfers.dataSource();
    }

    @Bean
    public PlatformTransactionManager transactionManager(DataSource dataSource) {
        return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    public JdbcTemplate jdbcTemplate(DataSource dataSource) {
        return new JdbcTemplate(dataSource);
    }

    @Bean
    public Ledger ledger(JdbcTemplate jdbc) {
        return new Ledger(jdbc);
    }

    /** Commits when transfer() returns, as Spring's proxy does. */
    public static class Ledger {
        private final JdbcTemplate jdbc;

        public Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public void transfer(String transfer, long amount, String pauseBeforeCommit) {
            jdbc.update("INSERT INTO " + Transfers.TABLE + " (transfer_id, amount, via) VALUES (?, ?, ?)", transfer, amount, "spring");
            Transfers.stage(transfer, "written");
            Transfers.pause(pauseBeforeCommit);
        }
    }

    /** Registered as a member class of this configuration. */
    @RestController
    public static class Controller {
        private final Ledger ledger;

        public Controller(Ledger ledger) {
            this.ledger = ledger;
        }

        @PostMapping(value = "/transfers", produces = "application/json")
        public ResponseEntity<String> transfer(@RequestBody String body,
                                               @RequestHeader(value = "X-Pause-Before-Commit-Ms", required = false) String before,
                                               @RequestHeader(value = "X-Pause-After-Commit-Ms", required = false) String after) throws Exception {
            String transfer = Transfers.field(body, "transfer");
            long amount = Long.parseLong(Transfers.field(body, "amount"));
            ledger.transfer(transfer, amount, before);
            Transfers.stage(transfer, "committed");
            Transfers.pause(after);
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body("{\"transfer\":\"" + transfer + "\",\"amount\":" + amount + ",\"at\":" + System.nanoTime() + "}");
        }
    }
}
