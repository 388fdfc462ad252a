#include "secretprompt.h"

#include "secretstore.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QThread>
#include <QTimer>

using opsdeck::secrets::SecretBytes;
using opsdeck::secrets::SecretStore;

namespace {

// Takes what was typed out of the dialog and empties it. The line edit and
// the dialog share one buffer with the text; same-length filler and then an
// empty text make both drop it, so `typed` becomes its only owner and wipe()
// zeroes it in place. `keep`: whether the answer is wanted (else only cleared).
std::optional<SecretBytes> takeTyped(QInputDialog &dialog, bool keep)
{
    QString typed = dialog.textValue();
    dialog.setTextValue(QString(typed.size(), QLatin1Char('*')));
    dialog.setTextValue(QString());
    if (auto *edit = dialog.findChild<QLineEdit *>())
        edit->clear();
    std::optional<SecretBytes> answer;
    if (keep) {
        QByteArray utf8 = typed.toUtf8();
        answer = SecretBytes::take(utf8);
    }
    SecretStore::wipe(typed);
    return answer;
}

} // namespace

SecretPrompt::SecretPrompt(QWidget *window) : QObject(window), m_window(window) {}

std::optional<QByteArray> SecretPrompt::ask(const QString &question)
{
    if (QThread::currentThread() == thread())
        return std::nullopt;
    std::unique_lock lock(m_mutex);
    if (m_refusing)
        return std::nullopt;
    const quint64 generation = m_generation;
    quint64 id = 0;
    for (const auto &[openId, open] : m_questions)
        if (open.text == question && !open.expired)
            id = openId;
    if (id != 0 && m_questions[id].answered) {
        const Question &recent = m_questions[id];
        return recent.answer ? std::optional<QByteArray>(recent.answer->copy()) : std::nullopt;
    }
    if (id == 0) {
        id = m_nextQuestion++;
        m_questions[id].text = question;
        QMetaObject::invokeMethod(
            this, [this, question, id, generation] { show(question, id, generation); },
            Qt::QueuedConnection);
    }
    ++m_questions[id].waiters;
    m_answered.wait(lock, [&] { return m_generation != generation || m_questions[id].answered; });
    if (m_generation != generation)
        return std::nullopt;
    Question &asked = m_questions[id];
    // A deep copy per waiter: a shared QByteArray could not be zeroed by one
    // owner without detaching (secretbytes.h).
    std::optional<QByteArray> answer;
    if (asked.answer)
        answer = asked.answer->copy();
    if (--asked.waiters == 0 && asked.expired)
        m_questions.erase(id); // SecretBytes zeroes the prompt's copy
    return answer;
}

void SecretPrompt::abandon()
{
    {
        std::lock_guard lock(m_mutex);
        ++m_generation;
        m_refusing = true;
        m_questions.clear(); // SecretBytes zeroes every answer held
    }
    m_answered.notify_all();
}

void SecretPrompt::resume()
{
    std::lock_guard lock(m_mutex);
    m_refusing = false;
}

void SecretPrompt::expire(quint64 id)
{
    std::lock_guard lock(m_mutex);
    const auto found = m_questions.find(id);
    if (found == m_questions.end())
        return; // abandoned meanwhile
    found->second.expired = true;
    if (found->second.waiters == 0)
        m_questions.erase(found); // SecretBytes zeroes the prompt's copy
}

void SecretPrompt::show(const QString &question, quint64 id, quint64 generation)
{
    {
        std::lock_guard lock(m_mutex);
        if (generation != m_generation)
            return; // abandoned before it was shown
    }
    ++m_asked;
    Q_EMIT asking(question);
    QPointer<QInputDialog> dialog = new QInputDialog(m_window);
    dialog->setWindowTitle(QStringLiteral("SSH login"));
    dialog->setLabelText(question.trimmed() +
                         QStringLiteral("\n(used for this login only; keep it in the keychain "
                                        "with `opsdeck-cli secret set KEY` to be asked no more)"));
    dialog->setTextEchoMode(QLineEdit::Password);
    dialog->setInputMode(QInputDialog::TextInput);
    // Asked without a nested event loop (DESIGN, Threads): the answer comes
    // with the dialog's finished signal; the GUI thread never waits here.
    connect(dialog, &QDialog::finished, this, [this, dialog, id, generation](int result) {
        if (!dialog)
            return;
        std::optional<SecretBytes> answer = takeTyped(*dialog, result == QDialog::Accepted);
        dialog->deleteLater();
        {
            std::lock_guard lock(m_mutex);
            if (generation != m_generation)
                return;
            Question &asked = m_questions[id];
            asked.answer = std::move(answer);
            asked.answered = true;
        }
        m_answered.notify_all();
        QTimer::singleShot(reuseFor, this, [this, id] { expire(id); });
    });
    dialog->setWindowModality(Qt::WindowModal);
    dialog->open();
}
