package dev.idempotency.woven.jms;

import javax.jms.CompletionListener;
import javax.jms.Destination;
import javax.jms.Message;
import javax.jms.MessageProducer;

/** A broker client's producer as a test needs it: it sends nowhere and counts what it was asked to send. */
public abstract class BaseProducer implements MessageProducer {
    public int sent;
    private final Destination destination = new Destination() {
        @Override
        public String toString() { return "queue://payouts"; }
    };

    @Override public void setDisableMessageID(boolean value) { }
    @Override public boolean getDisableMessageID() { return false; }
    @Override public void setDisableMessageTimestamp(boolean value) { }
    @Override public boolean getDisableMessageTimestamp() { return false; }
    @Override public void setDeliveryMode(int deliveryMode) { }
    @Override public int getDeliveryMode() { return 0; }
    @Override public void setPriority(int defaultPriority) { }
    @Override public int getPriority() { return 0; }
    @Override public void setTimeToLive(long timeToLive) { }
    @Override public long getTimeToLive() { return 0; }
    @Override public void setDeliveryDelay(long deliveryDelay) { }
    @Override public long getDeliveryDelay() { return 0; }
    @Override public Destination getDestination() { return destination; }
    @Override public void close() { }
    @Override public void send(Message message, int deliveryMode, int priority, long timeToLive) throws javax.jms.JMSException { send(message); }
    @Override public void send(Destination to, Message message) throws javax.jms.JMSException { send(message); }
    @Override public void send(Destination to, Message message, int deliveryMode, int priority, long timeToLive) throws javax.jms.JMSException { send(message); }
    @Override public void send(Message message, CompletionListener listener) throws javax.jms.JMSException { send(message); }
    @Override public void send(Message message, int deliveryMode, int priority, long timeToLive, CompletionListener listener) throws javax.jms.JMSException { send(message); }
    @Override public void send(Destination to, Message message, CompletionListener listener) throws javax.jms.JMSException { send(message); }
    @Override public void send(Destination to, Message message, int deliveryMode, int priority, long timeToLive, CompletionListener listener) throws javax.jms.JMSException { send(message); }
}
