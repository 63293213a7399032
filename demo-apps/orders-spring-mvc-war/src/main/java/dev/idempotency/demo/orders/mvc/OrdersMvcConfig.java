package dev.idempotency.demo.orders.mvc;

import java.util.Map;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.ViewResolver;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.view.AbstractView;
import org.springframework.web.servlet.view.BeanNameViewResolver;
import org.springframework.web.servlet.view.InternalResourceViewResolver;

/** Classic Spring MVC set-up, named in web.xml, with one view resolved by its bean name and the usual redirects. */
@Configuration
@EnableWebMvc
@ComponentScan("dev.idempotency.demo.orders.spring")
public class OrdersMvcConfig {

    @Bean
    public ViewResolver viewsByBeanName() {
        BeanNameViewResolver byBeanName = new BeanNameViewResolver();
        byBeanName.setOrder(0);
        return byBeanName;
    }

    /** After the views by bean name: "redirect:" and "forward:" names, as every Spring MVC application has them. */
    @Bean
    public ViewResolver redirects() {
        InternalResourceViewResolver redirects = new InternalResourceViewResolver("/WEB-INF/views/", ".jsp");
        redirects.setOrder(1);
        return redirects;
    }

    /** The view of /api/answers/view: text, in the charset of the locale DispatcherServlet set on the response. */
    @Bean
    public View answer() {
        AbstractView view = new AbstractView() {
            @Override
            protected void renderMergedOutputModel(Map<String, Object> model, HttpServletRequest request, HttpServletResponse response)
                    throws java.io.IOException {
                response.setContentType(getContentType());
                response.getWriter().print("answered by a view");
            }
        };
        view.setContentType("text/plain");
        return view;
    }
}
