package dev.idempotency.demo.orders.spring;

import dev.idempotency.demo.ledger.Ledger;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * POST /api/answers/{kind}: one side effect ("answer"), then an answer Spring leaves to the container or a view: a view
 * by name (rendered by whatever view the application defines; DispatcherServlet sets the response's locale first), a
 * refusal Spring turns into sendError with its reason, and a relative redirect.
 */
@Controller
@RequestMapping("/api/answers")
public class AnswersController {

    /** Annotated rather than a ResponseStatusException, whose constructors differ between Spring 5 and 6. */
    @ResponseStatus(code = HttpStatus.CONFLICT, reason = "already taken")
    static class Taken extends RuntimeException {
    }

    @ResponseStatus(code = HttpStatus.NOT_FOUND, reason = "no such answer")
    static class Unknown extends RuntimeException {
    }

    @PostMapping("/{kind}")
    public String answer(@PathVariable("kind") String kind) {
        Ledger.record("answer", 0, "eur");
        switch (kind) {
            case "view":
                return "answer";
            case "error":
                throw new Taken();
            case "redirect":
                return "redirect:done";
            default:
                throw new Unknown();
        }
    }
}
