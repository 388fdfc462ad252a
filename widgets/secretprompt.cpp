#include "secretprompt.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QThread>

SecretPrompt::SecretPrompt(QWidget *window) : QObject(window), m_window(window) {}

std::optional<QByteArray> SecretPrompt::ask(const QString &question)
{
    if (QThread::currentThread() == thread())
        return std::nullopt;
    std::unique_lock lock(m_mutex);
    const quint64 generation = m_generation;
    quint64 id = 0;
    for (const auto &[openId, open] : m_questions)
        if (open.text == question && !open.answered)
            id = openId;
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
    std::optional<QByteArray> answer = asked.answer;
    if (--asked.waiters == 0) {
        if (asked.answer)
            asked.answer->fill('\0');
        m_questions.erase(id);
    }
    return answer;
}

void SecretPrompt::abandon()
{
    {
        std::lock_guard lock(m_mutex);
        ++m_generation;
        for (auto &[id, question] : m_questions)
            if (question.answer)
                question.answer->fill('\0');
        m_questions.clear();
    }
    m_answered.notify_all();
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
    const bool given = dialog->exec() == QDialog::Accepted && dialog;
    std::optional<QByteArray> answer;
    if (given)
        answer = dialog->textValue().toUtf8();
    if (dialog) {
        dialog->setTextValue(QString());
        dialog->deleteLater();
    }
    {
        std::lock_guard lock(m_mutex);
        if (generation != m_generation)
            return;
        Question &asked = m_questions[id];
        asked.answer = std::move(answer);
        asked.answered = true;
    }
    m_answered.notify_all();
}
