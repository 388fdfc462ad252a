#pragma once

#include "secretbytes.h"

#include <QByteArray>
#include <QObject>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

class QWidget;

/// Asks the operator for an SSH password or key passphrase in the window
/// (issue 5: "from the keychain or asked"), for SshSecrets' prompt hook.
/// ask() is called from an SSH session thread: the question is posted to the
/// GUI thread (a modal password field, echo off) and the session thread waits
/// for the answer. Before the GUI thread deletes transports (their threads are
/// joined) it calls abandon(): waiting questions then return nullopt at once,
/// so a question never deadlocks a reload or the window closing.
/// The same question asked again while it is still open (the host's command
/// session and its tunnel both log in at once) waits for the same answer,
/// and asked again within reuseFor after it was answered (the second login
/// started a moment later) gets that answer without a dialog, so the
/// operator types it once. A cancel is reused the same way. Each waiter gets a buffer of its own
/// (its caller wipes it, SecretStore::wipe); the prompt's copy is zeroed when every waiter has it.
/// The dialog's text is taken out of the line edit and the last buffer of it zeroed (Qt's own
/// intermediate copies while typing are out of reach). Never logged. Lives in the GUI thread.
class SecretPrompt : public QObject
{
    Q_OBJECT
public:
    explicit SecretPrompt(QWidget *window);

    /// `question` as SshSecrets gives it ("Password for root@gpu-1: ").
    /// nullopt when the operator cancels or the question was abandoned.
    /// Any thread but the GUI thread (there it returns nullopt: the GUI never waits).
    std::optional<QByteArray> ask(const QString &question);
    /// Any thread. Questions waiting now get nullopt; the answer of a dialog
    /// still open is dropped. Until resume(), questions asked get nullopt at
    /// once: a session thread that tries another login method right after
    /// must not wait again while the GUI thread joins it.
    void abandon();
    /// Questions are shown again (after the transports were replaced).
    void resume();

    /// How long an answer is handed to the same question asked again, then
    /// zeroed: long enough for a host's logins that start together.
    static constexpr std::chrono::seconds reuseFor{30};

    /// Questions shown so far.
    int asked() const { return m_asked; }

Q_SIGNALS:
    /// A question is about to be shown (GUI thread): for tests and the status bar.
    void asking(const QString &question);

private:
    void show(const QString &question, quint64 id, quint64 generation);
    /// reuseFor after an answer (GUI thread): the answer is zeroed once no
    /// waiter still copies it.
    void expire(quint64 id);

    QWidget *m_window;
    int m_asked = 0;
    std::mutex m_mutex;
    std::condition_variable m_answered;
    quint64 m_generation = 0; ///< raised by abandon()
    bool m_refusing = false;  ///< between abandon() and resume()
    quint64 m_nextQuestion = 1;
    struct Question
    {
        QString text;
        int waiters = 0;
        bool answered = false;
        bool expired = false; ///< reuseFor has passed since the answer
        std::optional<opsdeck::secrets::SecretBytes> answer; ///< zeroed when erased
    };
    /// By id. Dialogs can nest (a second host asks while the first question
    /// is open), so answers need not come in order.
    std::map<quint64, Question> m_questions;
};
