package dev.idempotency.demo.orders.mvc;

import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/** Classic Spring MVC set-up, named in web.xml. */
@Configuration
@EnableWebMvc
@ComponentScan("dev.idempotency.demo.orders.spring")
public class OrdersMvcConfig {
}
