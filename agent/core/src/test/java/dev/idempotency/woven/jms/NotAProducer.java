package dev.idempotency.woven.jms;

import javax.jms.Message;

/** Mentions JMS and has a send method, but produces nothing the JMS way: never hooked. */
public class NotAProducer {
    public int send(Message message) {
        return 1;
    }
}
