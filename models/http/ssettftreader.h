#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace opsdeck::probes {

/// Finds the first token of a streamed chat completion in its SSE body, for
/// TTFT as users feel it (issue 4): the first event whose
/// `choices[0].delta.content` is a non-empty string. Not the first byte, not
/// the role-only or empty-content chunk servers send first (SGLang and the
/// sim send `{"role":"assistant","content":""}`), not `data: [DONE]`.
///
/// Events may arrive split across reads at any byte: they are reassembled at
/// their blank-line end (`\n\n` or `\r\n\r\n`, the SSE spec's line ends).
/// Multi-line `data:` fields are joined with `\n` as the spec says. Input after
/// the first token is ignored, so the buffer never grows past one event plus
/// one read. Not thread-safe; one per stream.
class SseTtftReader
{
public:
    /// Feeds the next bytes of the body. Returns true exactly once: for the
    /// read that completed the first content event.
    bool feed(QByteArrayView bytes);
    bool foundContent() const { return m_found; }
    /// Number of complete events seen so far (content or not), for tests.
    int eventCount() const { return m_events; }
    /// The `data:` payload of the event that carried the first token.
    const QByteArray &contentEvent() const { return m_contentEvent; }

private:
    bool takeEvent(const QByteArray &event);

    QByteArray m_buffer;
    QByteArray m_contentEvent;
    int m_events = 0;
    bool m_found = false;
};

} // namespace opsdeck::probes
