package dev.idempotency.demo.transfers;

import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;

/** GET /stages?transfer=ID: how far a transfer got (none, written, committed, called-out), for a test to time a crash. */
@WebServlet("/stages")
public class StageServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        String transfer = request.getParameter("transfer");
        response.getWriter().write(transfer == null ? "up" : Transfers.stageOf(transfer));
    }
}
