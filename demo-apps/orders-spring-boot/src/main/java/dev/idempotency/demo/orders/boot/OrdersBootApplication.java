package dev.idempotency.demo.orders.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The orders service as a Spring Boot 3 executable jar (embedded Tomcat, jakarta). */
@SpringBootApplication(scanBasePackages = "dev.idempotency.demo.orders.spring")
public class OrdersBootApplication {
    public static void main(String[] args) {
        SpringApplication.run(OrdersBootApplication.class, args);
    }
}
