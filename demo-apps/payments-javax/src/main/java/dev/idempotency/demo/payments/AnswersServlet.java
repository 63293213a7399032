package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.util.Locale;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * POST /answers?case=…: one side effect ("answer"), then an answer of the kinds frameworks and legacy code give, each
 * leaving part of its response for the container to write: a locale (Content-Language and a charset written at
 * commit), an error without a body (the container's error page), an error mapped to a page of the application's own in
 * web.xml, by status and by exception, and a relative redirect; and one that creates a session.
 */
public class AnswersServlet extends HttpServlet {
    /** Mapped to /answer-error in web.xml. */
    public static final int MAPPED_STATUS = 418;

    /** An application failure that web.xml maps to an error page. */
    public static class Refused extends ServletException {
        public Refused(String message) {
            super(message);
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
        String answer = String.valueOf(req.getParameter("case"));
        Ledger.record("answer", 0, "eur");
        switch (answer) {
            case "locale": // Struts and Spring MVC set a locale on every request
                resp.setLocale(Locale.FRANCE);
                resp.setContentType("text/plain");
                resp.getWriter().print("bonjour");
                return;
            case "charset":
                resp.setCharacterEncoding("UTF-8");
                resp.setContentType("text/plain");
                resp.getWriter().print("gr\u00fc\u00dfe");
                return;
            case "error":
                resp.sendError(400);
                return;
            case "error-message":
                resp.sendError(409, "already taken");
                return;
            case "error-page-status":
                resp.sendError(MAPPED_STATUS);
                return;
            case "error-page-exception":
                throw new Refused("refused by the application");
            case "cookie": // a preference, set the servlet way
                javax.servlet.http.Cookie theme = new javax.servlet.http.Cookie("theme", "dark");
                theme.setPath("/shop");
                theme.setHttpOnly(true);
                resp.addCookie(theme);
                resp.setContentType("text/plain");
                resp.getWriter().print("cookie set");
                return;
            case "session": // a JSP or an action framework creates one by default
                req.getSession(true).setAttribute("answered", Boolean.TRUE);
                resp.setContentType("text/plain");
                resp.getWriter().print("answered in a new session");
                return;
            case "redirect":
                resp.sendRedirect("done");
                return;
            default:
                resp.sendError(404, "no such case: " + answer);
        }
    }
}
