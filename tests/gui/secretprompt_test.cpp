// The window's SSH password question (SecretPrompt): the typed answer reaches
// the session thread, and the dialog's line edit is emptied the way the
// prompt promises (same-length filler, then empty), so the last buffer of
// the typed text can be zeroed rather than left to the widgets.
#include "secretprompt.h"
#include "secretstore.h"
#include "testsupport.h"

#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <gtest/gtest.h>
#include <optional>
#include <thread>

using opsdeck::test::waitUntil;
using namespace std::chrono_literals;

namespace {

// Asks `question` from a thread of its own, as an SSH session thread does,
// while this thread runs the dialog; false when no answer came within 10 s.
bool askFromAnotherThread(SecretPrompt &prompt, const QString &question,
                          std::optional<QByteArray> &answer)
{
    std::atomic<bool> done{false};
    std::thread asker([&] {
        answer = prompt.ask(question);
        done = true;
    });
    const bool finished = waitUntil([&] { return done.load(); }, 10s);
    if (!finished)
        prompt.abandon();
    asker.join();
    return finished;
}

} // namespace

TEST(SecretPrompt, TheTypedPasswordReachesTheAskerAndTheLineEditIsOverwrittenThenEmptied)
{
    QWidget window;
    SecretPrompt prompt(&window);
    const QString typed = QStringLiteral("typed-pw-5521");
    QStringList shown; // what the line edit held, in order (never printed)
    bool answered = false;
    // Types and accepts once the modal dialog is up. No nested event loop on
    // the GUI thread: the typist runs at the test's own loop level.
    const int loopLevel = QThread::currentThread()->loopLevel();
    int typistLoopLevel = -1;
    QTimer typist;
    typist.setInterval(10);
    QObject::connect(&typist, &QTimer::timeout, [&] {
        auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
        if (!dialog || answered)
            return;
        auto *edit = dialog->findChild<QLineEdit *>();
        if (!edit)
            return;
        answered = true;
        typistLoopLevel = QThread::currentThread()->loopLevel();
        EXPECT_EQ(edit->echoMode(), QLineEdit::Password);
        QObject::connect(edit, &QLineEdit::textChanged,
                         [&](const QString &text) { shown << text; });
        edit->setText(typed);
        dialog->accept();
    });
    typist.start();

    std::optional<QByteArray> answer;
    ASSERT_TRUE(askFromAnotherThread(prompt, QStringLiteral("Password for ops@gpu-1: "), answer));

    EXPECT_EQ(prompt.asked(), 1);
    EXPECT_EQ(typistLoopLevel, loopLevel) << "the dialog ran a nested event loop";
    ASSERT_TRUE(answer.has_value());
    EXPECT_TRUE(*answer == typed.toUtf8()); // not streamed: a secret in a test is still a secret
    // The dialog's text went through filler of the same length to empty.
    ASSERT_GE(shown.size(), 3);
    EXPECT_TRUE(shown.first() == typed);
    EXPECT_TRUE(shown.contains(QString(typed.size(), QLatin1Char('*'))));
    EXPECT_TRUE(shown.last().isEmpty());
    opsdeck::secrets::SecretStore::wipe(*answer);
}

TEST(SecretPrompt, ACancelledQuestionAnswersNothingAndEmptiesTheLineEdit)
{
    QWidget window;
    SecretPrompt prompt(&window);
    QPointer<QLineEdit> edit;
    bool cancelled = false;
    QTimer typist;
    typist.setInterval(10);
    QObject::connect(&typist, &QTimer::timeout, [&] {
        auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
        if (!dialog || cancelled)
            return;
        edit = dialog->findChild<QLineEdit *>();
        if (!edit)
            return;
        cancelled = true;
        edit->setText(QStringLiteral("half-typed"));
        dialog->reject();
    });
    typist.start();

    std::optional<QByteArray> answer = QByteArray("unset");
    ASSERT_TRUE(askFromAnotherThread(prompt, QStringLiteral("Password for ops@gpu-2: "), answer));
    EXPECT_FALSE(answer.has_value());
    // Alive until the event loop deletes the dialog, and already empty then.
    EXPECT_TRUE(!edit || edit->text().isEmpty());
}

// While the window replaces its transports (abandon() ... resume()), a session
// thread that asks again at once (its next login method) must not wait: the
// GUI thread is about to join it. After resume() questions are shown again.
TEST(SecretPrompt, BetweenAbandonAndResumeAQuestionIsRefusedAtOnce)
{
    QWidget window;
    SecretPrompt prompt(&window);
    prompt.abandon();
    std::optional<QByteArray> answer = QByteArray("unset");
    ASSERT_TRUE(askFromAnotherThread(prompt, QStringLiteral("Password for ops@gpu-2: "), answer));
    EXPECT_FALSE(answer.has_value());
    EXPECT_EQ(prompt.asked(), 0) << "no dialog while abandoned";

    prompt.resume();
    QTimer canceller;
    canceller.setInterval(10);
    QObject::connect(&canceller, &QTimer::timeout, [&] {
        if (auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget()))
            dialog->reject();
    });
    canceller.start();
    ASSERT_TRUE(askFromAnotherThread(prompt, QStringLiteral("Password for ops@gpu-2: "), answer));
    EXPECT_EQ(prompt.asked(), 1);
}

// A host's command session and its tunnel log in a moment apart: the second
// asks after the first answer came. It gets that answer without a dialog; a
// question about another login is still shown.
TEST(SecretPrompt, TheSameQuestionAskedJustAfterItsAnswerIsNotShownAgain)
{
    QWidget window;
    SecretPrompt prompt(&window);
    const QString typed = QStringLiteral("typed-pw-7730");
    QTimer typist;
    typist.setInterval(10);
    QObject::connect(&typist, &QTimer::timeout, [&] {
        auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        if (dialog->labelText().contains(QStringLiteral("gpu-9")))
            dialog->reject();
        else {
            dialog->setTextValue(typed);
            dialog->accept();
        }
    });
    typist.start();
    const QString question = QStringLiteral("Password for ops@gpu-3: ");
    std::optional<QByteArray> first;
    ASSERT_TRUE(askFromAnotherThread(prompt, question, first));
    ASSERT_TRUE(first.has_value());
    std::optional<QByteArray> second;
    ASSERT_TRUE(askFromAnotherThread(prompt, question, second));
    EXPECT_EQ(prompt.asked(), 1) << "the second login was asked again";
    ASSERT_TRUE(second.has_value());
    EXPECT_TRUE(*second == typed.toUtf8()); // not streamed: a secret in a test is still a secret

    std::optional<QByteArray> other = QByteArray("unset");
    ASSERT_TRUE(askFromAnotherThread(prompt, QStringLiteral("Password for ops@gpu-9: "), other));
    EXPECT_EQ(prompt.asked(), 2);
    EXPECT_FALSE(other.has_value());
    opsdeck::secrets::SecretStore::wipe(*first);
    opsdeck::secrets::SecretStore::wipe(*second);
}
