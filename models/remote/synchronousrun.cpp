#include "synchronousrun.h"

#include <QEventLoop>

namespace opsdeck::remote {

CommandResult runAndWait(Transport &transport, const CommandRequest &request)
{
    QEventLoop loop;
    CommandResult result;
    quint64 wanted = 0;
    bool done = false;
    const auto connection = QObject::connect(&transport, &Transport::commandFinished, &loop,
                                             [&](quint64 id, const CommandResult &finished) {
                                                 if (id != wanted)
                                                     return;
                                                 result = finished;
                                                 done = true;
                                                 loop.quit();
                                             });
    wanted = transport.run(request);
    if (!done)
        loop.exec();
    QObject::disconnect(connection);
    return result;
}

} // namespace opsdeck::remote
