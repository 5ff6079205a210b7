// Sarama 1.22 (Debian golang-github-shopify-sarama-dev) against a Gregor cluster, at the
// config.Version given: ClusterAdmin create and describe, produce (idempotent from 0.11: acks=all,
// one request in flight), consume, a consumer group that commits with Sarama's default
// OffsetCommit version and that a second group member resumes from, and offsets by time
// (Client.GetOffset with a timestamp).
// Usage: sarama_client BOOTSTRAP VERSION TOPIC   (VERSION: 0.10.2.0, 1.0.0, 2.1.0)
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/Shopify/sarama"
)

const count = 60

var baseTime = time.Unix(1700000000, 0)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func newConfig(version sarama.KafkaVersion) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = version
	c.ClientID = "gregor-sarama-test"
	c.Metadata.Retry.Max = 20
	c.Metadata.Retry.Backoff = 250 * time.Millisecond
	return c
}

// groupHandler reads partition 0 until it has seen `want` records (or the session ends),
// marking each, so the group's offset manager commits them.
type groupHandler struct {
	want   int
	offset []int64
	done   chan struct{}
}

func (h *groupHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *groupHandler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		if m.Partition != 0 {
			s.MarkMessage(m, "")
			continue
		}
		if len(h.offset) < h.want {
			h.offset = append(h.offset, m.Offset)
			s.MarkMessage(m, "")
		}
		if len(h.offset) == h.want {
			select {
			case <-h.done:
			default:
				close(h.done)
			}
		}
	}
	return nil
}

func runGroup(addrs []string, version sarama.KafkaVersion, topic string, want int) []int64 {
	c := newConfig(version)
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Return.Errors = false
	group, err := sarama.NewConsumerGroup(addrs, "sarama-group-"+topic, c)
	if err != nil {
		fail("NewConsumerGroup: %v", err)
	}
	h := &groupHandler{want: want, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if err := group.Consume(ctx, []string{topic}, h); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "group.Consume: %v (retrying)\n", err)
				time.Sleep(500 * time.Millisecond)
			}
		}
	}()
	select {
	case <-h.done:
	case <-time.After(90 * time.Second):
		fail("the group read %d of %d records in 90 s", len(h.offset), want)
	}
	cancel()
	if err := group.Close(); err != nil { // commits what was marked
		fail("group.Close: %v", err)
	}
	return h.offset
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: sarama_client BOOTSTRAP VERSION TOPIC")
	}
	addrs := strings.Split(os.Args[1], ",")
	version, err := sarama.ParseKafkaVersion(os.Args[2])
	if err != nil {
		fail("version %s: %v", os.Args[2], err)
	}
	topic := os.Args[3]

	// Admin: create the topic through the controller, then describe it.
	admin, err := sarama.NewClusterAdmin(addrs, newConfig(version))
	if err != nil {
		fail("NewClusterAdmin: %v", err)
	}
	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 3}, false); err != nil {
		fail("CreateTopic: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		md, err := admin.DescribeTopics([]string{topic})
		if err == nil && len(md) == 1 && md[0].Err == sarama.ErrNoError && len(md[0].Partitions) == 3 {
			break
		}
		if time.Now().After(deadline) {
			fail("DescribeTopics did not show 3 partitions: %v %v", md, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	admin.Close()
	// Every broker must know the topic's leaders before clients that ask any of them use it.
	for _, addr := range addrs {
		b := sarama.NewBroker(addr)
		if err := b.Open(newConfig(version)); err != nil {
			fail("opening %s: %v", addr, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			md, err := b.GetMetadata(&sarama.MetadataRequest{Topics: []string{topic}})
			known := err == nil && len(md.Topics) == 1 && md.Topics[0].Err == sarama.ErrNoError && len(md.Topics[0].Partitions) == 3
			if known {
				for _, p := range md.Topics[0].Partitions {
					known = known && p.Err == sarama.ErrNoError && p.Leader >= 0
				}
			}
			if known {
				break
			}
			if time.Now().After(deadline) {
				fail("broker %s does not know %s's leaders after 30 s", addr, topic)
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.Close()
	}
	fmt.Printf("admin: created and described %s\n", topic)

	// Produce to partition 0, with timestamps; idempotent where the version allows it.
	pc := newConfig(version)
	pc.Producer.RequiredAcks = sarama.WaitForAll
	pc.Producer.Return.Successes = true
	pc.Producer.Partitioner = sarama.NewManualPartitioner
	pc.Producer.Retry.Max = 10
	idempotent := version.IsAtLeast(sarama.V0_11_0_0)
	if idempotent {
		pc.Producer.Idempotent = true
		pc.Net.MaxOpenRequests = 1
	}
	producer, err := sarama.NewSyncProducer(addrs, pc)
	if err != nil {
		fail("NewSyncProducer: %v", err)
	}
	for i := 0; i < count; i++ {
		_, offset, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic: topic, Partition: 0, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)),
			Value: sarama.StringEncoder(fmt.Sprintf("v%d", i)), Timestamp: baseTime.Add(time.Duration(i) * time.Second)})
		if err != nil {
			fail("SendMessage %d: %v", i, err)
		}
		if offset != int64(i) {
			fail("record %d was written at offset %d", i, offset)
		}
	}
	producer.Close()
	fmt.Printf("produce: %d records (idempotent: %v)\n", count, idempotent)

	// Consume partition 0 from the beginning.
	client, err := sarama.NewClient(addrs, newConfig(version))
	if err != nil {
		fail("NewClient: %v", err)
	}
	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		fail("NewConsumer: %v", err)
	}
	pcons, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fail("ConsumePartition: %v", err)
	}
	for i := 0; i < count; i++ {
		select {
		case m := <-pcons.Messages():
			if string(m.Value) != fmt.Sprintf("v%d", i) || m.Offset != int64(i) {
				fail("consumed %q at offset %d, expected v%d at %d", m.Value, m.Offset, i, i)
			}
			if !m.Timestamp.Equal(baseTime.Add(time.Duration(i) * time.Second)) {
				fail("record %d has timestamp %v", i, m.Timestamp)
			}
		case <-time.After(30 * time.Second):
			fail("consumed %d of %d records", i, count)
		}
	}
	pcons.Close()
	consumer.Close()
	fmt.Printf("consume: %d records in order\n", count)

	// Offsets by time: the first record at or after the time.
	for _, c := range []struct {
		at   time.Time
		want int64
	}{{baseTime.Add(20500 * time.Millisecond), 21}, {baseTime, 0}, {baseTime.Add(time.Hour), -1}} {
		got, err := client.GetOffset(topic, 0, c.at.UnixNano()/int64(time.Millisecond))
		if err != nil {
			fail("GetOffset(%v): %v", c.at, err)
		}
		// Kafka answers -1 when no record is that late.
		if got != c.want {
			fail("GetOffset(%v) = %d, expected %d", c.at, got, c.want)
		}
	}
	client.Close()
	fmt.Println("offsets by time: ok")

	// A group commits half (Sarama's default OffsetCommit version), and resumes there.
	first := runGroup(addrs, version, topic, count/2)
	if len(first) != count/2 || first[0] != 0 {
		fail("the first group run read offsets %v", first)
	}
	second := runGroup(addrs, version, topic, count/2)
	if second[0] != int64(count/2) {
		fail("the group did not resume from its commit: it read from offset %d", second[0])
	}
	fmt.Printf("group: committed %d, resumed at %d\n", len(first), second[0])
	fmt.Println("PASS")
}
